import { type Insertable, type Kysely, type Selectable, sql, type Transaction, type Updateable } from 'kysely';
import type { Database, UsersTable } from '../../db/schema';
import type { AuthChannel, AuthFlowPurpose, AuthFlowsTable } from '../../db/tables/auth';

/** The pool; services hold it only to hand it back here. */
export type Pool = Kysely<Database>;
/** An open transaction (row locks need one). */
export type Tx = Transaction<Database>;
type Q = Pool | Tx;
export type FlowRow = Selectable<AuthFlowsTable>;

/** The first key of the advisory locks on an address's code flows (the second is the address's hash). */
const ADDRESS_LOCK_SPACE = 7301;

/** Runs `fn` in one transaction: committed when it returns, rolled back when it throws. */
export const inTransaction = <T>(db: Pool, fn: (trx: Tx) => Promise<T>): Promise<T> => db.transaction().execute(fn);

/** Queries of users, sign-in flows and Discord states; each takes the handle it runs on. */
export const accountsRepository = {
  findUserBy(q: Q, column: 'email' | 'phone' | 'discord_id', value: string) {
    return q.selectFrom('users').selectAll().where(column, '=', value).executeTakeFirst();
  },

  /** The user with this email, the row locked until the transaction ends (waiting for a change in progress, then read as it stands). */
  lockUserByEmail(trx: Tx, email: string) {
    return trx.selectFrom('users').selectAll().where('email', '=', email).forNoKeyUpdate().executeTakeFirst();
  },

  findUserByTelegramId(q: Q, telegramId: bigint) {
    return q.selectFrom('users').selectAll().where('telegram_id', '=', telegramId).executeTakeFirst();
  },

  findUserById(q: Q, id: number) {
    return q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /**
   * The user, the row locked until the transaction ends (FOR NO KEY UPDATE, as an operator's change,
   * a password change and a second factor's step take it before they delete the user's tokens).
   */
  lockUserById(trx: Tx, id: number) {
    return trx.selectFrom('users').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
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

  /**
   * A recovery's part (in its transaction): no Discord account is linked to this one by its verified email
   * from now on (0041), and a Discord id linked that way (0036) to an account with an email or phone is
   * unlinked and refused (0035); the unlinked id or null. The Discord account an account was made by keeps it
   * (often its only way in, and no one else's Discord can be linked while it is).
   */
  async unlinkDiscordForGood(trx: Tx, userId: number) {
    const user = await trx.selectFrom('users').select(['discord_id', 'discord_linked_by_email', 'email', 'phone']).where('id', '=', userId).forNoKeyUpdate().executeTakeFirst();
    if (!user) return null;
    const unlink = user.discord_id !== null && user.discord_linked_by_email && (user.email !== null || user.phone !== null);
    await trx
      .updateTable('users')
      .set({ discord_email_links_closed_at: sql`now()`, ...(unlink ? { discord_id: null, discord_linked_by_email: false, updated_at: new Date() } : {}) })
      .where('id', '=', userId)
      .execute();
    if (!unlink || !user.discord_id) return null;
    await trx.insertInto('discord_link_refusals').values({ user_id: userId, discord_id: user.discord_id }).onConflict((oc) => oc.doNothing()).execute();
    return user.discord_id;
  },

  /** Whether a recovery unlinked this Discord id from this account (it is not linked again by email). */
  async discordRefused(q: Q, userId: number, discordId: string) {
    const row = await q.selectFrom('discord_link_refusals').select('user_id').where('user_id', '=', userId).where('discord_id', '=', discordId).executeTakeFirst();
    return row !== undefined;
  },

  /**
   * Links a Discord id that waited for the second factor: only to a user without one, and only while
   * no other user has it (it may have been linked elsewhere in the minutes the code took).
   */
  async linkDiscord(trx: Tx, userId: number, discordId: string) {
    // In a savepoint: a sign-up that took the id at the same moment (the NOT EXISTS cannot see it yet)
    // fails this statement alone, and the sign-in it belongs to goes on without the link.
    await sql`SAVEPOINT link_discord`.execute(trx);
    try {
      await trx
        .updateTable('users')
        .set({ discord_id: discordId, discord_linked_by_email: true, updated_at: new Date() })
        .where('id', '=', userId)
        .where('discord_id', 'is', null)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('users as other').select('other.id').where('other.discord_id', '=', discordId))))
        .execute();
      await sql`RELEASE SAVEPOINT link_discord`.execute(trx);
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await sql`ROLLBACK TO SAVEPOINT link_discord`.execute(trx);
    }
  },

  /** When the address last got a message of this flow kind (for the once-a-minute rule). */
  /** When a code last went to the address (by the flows of one browser only, when `browser` is given). */
  async lastSentAt(q: Q, purpose: AuthFlowPurpose, channel: AuthChannel, address: string, browser: string | null = null): Promise<Date | null> {
    let query = q
      .selectFrom('auth_flows')
      .select((eb) => eb.fn.max('last_sent_at').as('last'))
      .where('purpose', '=', purpose)
      .where('channel', '=', channel)
      .where('address', '=', address);
    if (browser) query = query.where('browser_hash', '=', browser);
    const row = await query.executeTakeFirst();
    return row?.last ? new Date(row.last as Date | string) : null;
  },

  /**
   * Serialises the flows of one address (and kind) until the transaction ends, so that parallel
   * requests for a code cannot all pass the once-a-minute rule before any of them is written.
   */
  async lockAddress(q: Tx, purpose: AuthFlowPurpose, channel: AuthChannel, address: string) {
    await sql`SELECT pg_advisory_xact_lock(${ADDRESS_LOCK_SPACE}::int, hashtext(${`${purpose}:${channel}:${address}`}))`.execute(q);
  },

  insertFlow(q: Q, values: Insertable<AuthFlowsTable>) {
    return q.insertInto('auth_flows').values(values).returning('id').executeTakeFirstOrThrow();
  },

  /** The flow behind a token, locked so that parallel guesses are counted one after another. */
  lockFlow(q: Tx, tokenHash: string, purpose: AuthFlowPurpose, channel: AuthChannel) {
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

  /** The user's reset flows still open are used up: their codes open nothing any more. */
  closeResetFlows(q: Q, userId: number) {
    return q.updateTable('auth_flows').set({ consumed_at: sql`now()` }).where('user_id', '=', userId).where('purpose', '=', 'reset').where('consumed_at', 'is', null).execute();
  },

  /** Flows an hour past expiry are of no use; swept as new flows start. */
  async sweepFlows(q: Q, now: Date) {
    await q
      .deleteFrom('auth_flows')
      .where('expires_at', '<', new Date(now.getTime() - 60 * 60_000))
      .execute();
  },

  insertOauthState(q: Q, values: { state_hash: string; code_verifier: string; redirect_uri: string; browser_hash: string; expires_at: Date }) {
    return q
      .insertInto('oauth_states')
      .values({ ...values, provider: 'discord' })
      .execute();
  },

  /** A state is good for one sign-in: it is deleted as it is read. */
  takeOauthState(q: Q, stateHash: string, browserHash: string, now: Date) {
    return q
      .deleteFrom('oauth_states')
      .where('state_hash', '=', stateHash)
      .where('browser_hash', '=', browserHash)
      .where('provider', '=', 'discord')
      .where('expires_at', '>', now)
      .returning(['code_verifier', 'redirect_uri'])
      .executeTakeFirst();
  },

  /** True the first time a Telegram sign-in result is used; false on a replay. */
  async claimTelegramSignIn(q: Q, hash: string, expiresAt: Date, now: Date) {
    await q.deleteFrom('telegram_sign_ins').where('expires_at', '<', now).execute();
    const row = await q
      .insertInto('telegram_sign_ins')
      .values({ hash, expires_at: expiresAt })
      .onConflict((oc) => oc.column('hash').doNothing())
      .returning('hash')
      .executeTakeFirst();
    return row !== undefined;
  },

  deleteExpiredOauthStates(q: Q, now: Date) {
    return q.deleteFrom('oauth_states').where('expires_at', '<', now).execute();
  },
};
