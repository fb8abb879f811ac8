import { type Insertable, type Kysely, type Selectable, sql, type Transaction, type Updateable } from 'kysely';
import type { Database, TokenKind, UsersTable } from '../../db/schema';
import type { AuthChannel, AuthFlowPurpose, AuthFlowsTable } from '../../db/tables/auth';

type Q = Kysely<Database> | Transaction<Database>;
export type UserRow = Selectable<UsersTable>;
export type FlowRow = Selectable<AuthFlowsTable>;

/** Queries of the auth module only; every one takes the handle it runs on (pool or transaction). */
export const authRepository = {
  findUserBy(q: Q, column: 'email' | 'phone' | 'discord_id', value: string) {
    return q.selectFrom('users').selectAll().where(column, '=', value).executeTakeFirst();
  },

  findUserByTelegramId(q: Q, telegramId: bigint) {
    return q.selectFrom('users').selectAll().where('telegram_id', '=', telegramId).executeTakeFirst();
  },

  findUserById(q: Q, id: number) {
    return q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  },

  insertUser(q: Q, values: Insertable<UsersTable>) {
    return q.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
  },

  /** Inserts unless a row with the same Telegram id appeared meanwhile; then returns nothing. */
  insertTelegramUser(q: Q, values: Insertable<UsersTable>) {
    return q
      .insertInto('users')
      .values(values)
      .onConflict((oc) => oc.column('telegram_id').doNothing())
      .returningAll()
      .executeTakeFirst();
  },

  updateUser(q: Q, id: number, set: Updateable<UsersTable>) {
    return q
      .updateTable('users')
      .set({ ...set, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  insertToken(q: Q, userId: number, kind: TokenKind, tokenHash: string, expiresAt: Date | null) {
    return q.insertInto('tokens').values({ user_id: userId, kind, token_hash: tokenHash, expires_at: expiresAt }).execute();
  },

  /** The live token of that kind and its user, blocked or not (the caller decides what a block means). */
  findLiveToken(q: Q, tokenHash: string, kind: TokenKind, now: Date) {
    return q
      .selectFrom('tokens')
      .select(['id', 'user_id'])
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst();
  },

  /** Removes a live token and says whose it was: a token used this way works exactly once. */
  takeToken(q: Q, tokenHash: string, kind: TokenKind, now: Date) {
    return q
      .deleteFrom('tokens')
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .returning(['user_id'])
      .executeTakeFirst();
  },

  deleteToken(q: Q, tokenHash: string, kind: TokenKind) {
    return q.deleteFrom('tokens').where('token_hash', '=', tokenHash).where('kind', '=', kind).executeTakeFirst();
  },

  /** Every session, socket token and pending new-password token of the user. */
  deleteAllTokens(q: Q, userId: number) {
    return q.deleteFrom('tokens').where('user_id', '=', userId).execute();
  },

  /** When the address last got a message of this flow kind (for the once-a-minute rule). */
  async lastSentAt(q: Q, purpose: AuthFlowPurpose, channel: AuthChannel, address: string): Promise<Date | null> {
    const row = await q
      .selectFrom('auth_flows')
      .select((eb) => eb.fn.max('last_sent_at').as('last'))
      .where('purpose', '=', purpose)
      .where('channel', '=', channel)
      .where('address', '=', address)
      .executeTakeFirst();
    return row?.last ? new Date(row.last as Date | string) : null;
  },

  insertFlow(q: Q, values: Insertable<AuthFlowsTable>) {
    return q.insertInto('auth_flows').values(values).returning('id').executeTakeFirstOrThrow();
  },

  /** The flow behind a token, locked so that parallel guesses are counted one after another. */
  lockFlow(q: Transaction<Database>, tokenHash: string, purpose: AuthFlowPurpose, channel: AuthChannel) {
    return q
      .selectFrom('auth_flows')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .where('channel', '=', channel)
      .forUpdate()
      .executeTakeFirst();
  },

  /** The address of a flow, read without a lock, for the per-address limit checked before the locked check. */
  async flowAddress(q: Q, tokenHash: string, purpose: AuthFlowPurpose, channel: AuthChannel) {
    const row = await q
      .selectFrom('auth_flows')
      .select('address')
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .where('channel', '=', channel)
      .executeTakeFirst();
    return row?.address ?? null;
  },

  updateFlow(q: Q, id: number, set: Updateable<AuthFlowsTable>) {
    return q.updateTable('auth_flows').set(set).where('id', '=', id).execute();
  },

  /** Flows an hour past expiry and rate windows a day old are of no use; swept as new flows start. */
  async sweep(q: Q, now: Date) {
    await q
      .deleteFrom('auth_flows')
      .where('expires_at', '<', new Date(now.getTime() - 60 * 60_000))
      .execute();
    await q
      .deleteFrom('rate_limits')
      .where('window_start', '<', new Date(now.getTime() - 24 * 60 * 60_000))
      .execute();
  },

  insertOauthState(q: Q, values: { state_hash: string; code_verifier: string; redirect_uri: string; expires_at: Date }) {
    return q
      .insertInto('oauth_states')
      .values({ ...values, provider: 'discord' })
      .execute();
  },

  /** A state is good for one sign-in: it is deleted as it is read. */
  takeOauthState(q: Q, stateHash: string, now: Date) {
    return q
      .deleteFrom('oauth_states')
      .where('state_hash', '=', stateHash)
      .where('provider', '=', 'discord')
      .where('expires_at', '>', now)
      .returning(['code_verifier', 'redirect_uri'])
      .executeTakeFirst();
  },

  deleteExpiredOauthStates(q: Q, now: Date) {
    return q.deleteFrom('oauth_states').where('expires_at', '<', now).execute();
  },

  /**
   * Counts one hit in a fixed window and returns the count and the window's start. One
   * statement, so two processes hitting the same key at once both get counted.
   */
  async hitRateLimit(q: Q, key: string, windowMs: number, now: Date) {
    const cutoff = new Date(now.getTime() - windowMs);
    const { rows } = await sql<{ hits: number; window_start: Date }>`
      INSERT INTO rate_limits (key, hits, window_start) VALUES (${key}, 1, ${now})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN rate_limits.window_start > ${cutoff} THEN rate_limits.hits + 1 ELSE 1 END,
        window_start = CASE WHEN rate_limits.window_start > ${cutoff} THEN rate_limits.window_start ELSE ${now} END
      RETURNING hits, window_start`.execute(q);
    const row = rows[0]!;
    return { hits: Number(row.hits), windowStart: new Date(row.window_start) };
  },

  peekRateLimit(q: Q, key: string) {
    return q.selectFrom('rate_limits').select(['hits', 'window_start']).where('key', '=', key).executeTakeFirst();
  },

  clearRateLimit(q: Q, key: string) {
    return q.deleteFrom('rate_limits').where('key', '=', key).execute();
  },
};
