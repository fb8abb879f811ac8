import { type Kysely, sql, type Transaction } from 'kysely';
import '../../db/tables/second-factors';
import type { Database } from '../../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

/** What a pending sign-in carries out with the good code: a reset's new password, a Discord link. */
export interface PendingOnCode {
  newPasswordHash?: string;
  linkDiscordId?: string;
}

/** TOTP state on the user row, recovery codes and the pending sign-ins; the owner first in every lookup. */
export const twoFactorRepository = {
  transaction: <T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(fn),

  /**
   * A new pending secret for the session's setup, replacing its own unfinished one but no other session's
   * (a stolen session's setup must not undo the owner's). The user's row is held FOR SHARE while TOTP is
   * off, so a setup racing `enable` either lands first (and enable clears it) or finds TOTP on.
   */
  setPendingSecret(db: Kysely<Database>, userId: number, sessionId: number, secret: string): Promise<'set' | 'totpOn' | 'sessionEnded'> {
    return db.transaction().execute(async (trx) => {
      const off = await trx.selectFrom('users').select('id').where('id', '=', userId).where('totp_secret', 'is', null).forShare().executeTakeFirst();
      if (!off) return 'totpOn';
      const res = await trx
        .updateTable('tokens')
        .set({ totp_pending_secret: secret })
        .where('id', '=', sessionId)
        .where('user_id', '=', userId)
        .where('kind', '=', 'access')
        .executeTakeFirst();
      return res.numUpdatedRows > 0n ? 'set' : 'sessionEnded';
    });
  },

  totpState(q: Q, userId: number) {
    return q.selectFrom('users').select(['totp_secret', 'totp_last_step']).where('id', '=', userId).executeTakeFirst();
  },

  /** The pending secret of this session's setup; null when it started none (or another call turned TOTP on with it). */
  async pendingSecret(q: Q, userId: number, sessionId: number) {
    const row = await q
      .selectFrom('tokens')
      .select('totp_pending_secret')
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .where('kind', '=', 'access')
      .executeTakeFirst();
    return row?.totp_pending_secret ?? null;
  },

  /**
   * Turns TOTP on with the session's pending secret, the enabling code's step taken, and clears every
   * session's unfinished setup. 'totpOn' when another call turned it on first, 'noSetup' when this
   * session's setup is gone or replaced meanwhile: the caller then rolls the transaction back.
   */
  async enable(q: Q, userId: number, sessionId: number, secret: string, step: bigint): Promise<'enabled' | 'totpOn' | 'noSetup'> {
    // The user's row first, as a setup holds it before its session's row.
    const on = await q.updateTable('users').set({ totp_secret: secret, totp_last_step: step }).where('id', '=', userId).where('totp_secret', 'is', null).executeTakeFirst();
    if (on.numUpdatedRows === 0n) return 'totpOn';
    const mine = await q
      .updateTable('tokens')
      .set({ totp_pending_secret: null })
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .where('kind', '=', 'access')
      .where('totp_pending_secret', '=', secret)
      .executeTakeFirst();
    if (mine.numUpdatedRows === 0n) return 'noSetup';
    await q.updateTable('tokens').set({ totp_pending_secret: null }).where('user_id', '=', userId).where('totp_pending_secret', 'is not', null).execute();
    return 'enabled';
  },

  async disable(q: Q, userId: number) {
    await q.updateTable('users').set({ totp_secret: null, totp_last_step: null }).where('id', '=', userId).execute();
    await q.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  },

  /** Takes a TOTP step for the user when it is later than the last one taken: one winner among parallel uses of a code. */
  async takeStep(q: Q, userId: number, step: bigint) {
    const res = await q
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('id', '=', userId)
      .where('totp_secret', 'is not', null)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  },

  async replaceRecoveryCodes(q: Q, userId: number, hashes: string[]) {
    await q.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await q.insertInto('recovery_codes').values(hashes.map((code_hash) => ({ user_id: userId, code_hash }))).execute();
  },

  /** Uses an unused recovery code of the user up; false when there is none such (wrong, used, another user's). */
  async takeRecoveryCode(q: Q, userId: number, hash: string, at: Date) {
    const res = await q
      .updateTable('recovery_codes')
      .set({ used_at: at })
      .where('user_id', '=', userId)
      .where('code_hash', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  },

  /**
   * A pending sign-in, only while the user is unblocked and has the password hash the first step was
   * checked against (`passwordHash`, the row as read): false when a reset, a password change or a block
   * came in between (the user's row is locked FOR SHARE for the statement, as a session's insert is).
   */
  async insertChallenge(q: Q, user: { id: number; password_hash: string | null }, tokenHash: string, expiresAt: Date, pending: PendingOnCode = {}) {
    const { rows } = await sql<{ token_hash: string }>`
      INSERT INTO two_factor_challenges (user_id, token_hash, expires_at, new_password_hash, link_discord_id)
      SELECT u.id, ${tokenHash}::text, ${expiresAt}::timestamptz, ${pending.newPasswordHash ?? null}::text, ${pending.linkDiscordId ?? null}::text
        FROM users u
       WHERE u.id = ${user.id} AND u.blocked_at IS NULL AND u.password_hash IS NOT DISTINCT FROM ${user.password_hash}::text
         FOR SHARE
      RETURNING token_hash`.execute(q);
    return rows.length > 0;
  },

  /**
   * Counts one try of a live challenge below its limit and says whose it is; undefined when
   * the challenge is unknown, expired or out of tries (then `challengeState` tells which).
   */
  /** A try counted by countTry that checked no code (the account's wrong-code limit refused it): given back. */
  giveTryBack(q: Q, tokenHash: string) {
    return q
      .updateTable('two_factor_challenges')
      .set((eb) => ({ attempts: eb.fn('greatest', [eb('attempts', '-', 1), eb.val(0)]) }))
      .where('token_hash', '=', tokenHash)
      .execute();
  },

  countTry(q: Q, tokenHash: string, at: Date, maxTries: number) {
    return q
      .updateTable('two_factor_challenges')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', at)
      .where('attempts', '<', maxTries)
      .returning(['user_id'])
      .executeTakeFirst();
  },

  /**
   * A challenge as it stands, live or expired (the purge removes expired ones within ten minutes):
   * when it expires and whether it carries a password reset (`resets`: a new password waits for the code).
   */
  challengeState(q: Q, tokenHash: string) {
    return q
      .selectFrom('two_factor_challenges')
      .select((eb) => ['expires_at', eb('new_password_hash', 'is not', null).as('resets')])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
  },

  /**
   * The user's row, for update, as a block, support's TOTP rescue or a reset takes it before it deletes the user's
   * challenges or sessions (the same order, so neither waits on the other's lock in reverse). Before a sign-in's
   * challenge is taken (taking it first deadlocked with them, and one side answered 503), and before a step-up's
   * code is used up in a money call's transaction. For update, not shared: the step may write the row (a waiting
   * reset, a Discord link, the TOTP step), and two calls of one user upgrading shared locks would deadlock.
   */
  async holdUser(q: Q, userId: number) {
    await sql`SELECT 1 FROM users WHERE id = ${userId} FOR NO KEY UPDATE`.execute(q);
  },

  /** Ends a pending sign-in once (with the reset or link it may carry); undefined when another call ended it first. */
  takeChallenge(q: Q, tokenHash: string) {
    return q
      .deleteFrom('two_factor_challenges')
      .where('token_hash', '=', tokenHash)
      .returning(['new_password_hash', 'link_discord_id'])
      .executeTakeFirst();
  },

  /** Notes a good step-up on the session (access token) it was made with. */
  async markSteppedUp(q: Q, userId: number, sessionId: number, at: Date) {
    await q.updateTable('tokens').set({ stepped_up_at: at }).where('id', '=', sessionId).where('user_id', '=', userId).where('kind', '=', 'access').execute();
  },

  /** When the session was signed in (its access token made), unless it came from a passkey: null then. */
  async ownSignInAt(q: Q, userId: number, sessionId: number) {
    const row = await q
      .selectFrom('tokens')
      .select('created_at')
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      // A passkey's session is not the account's own sign-in (sessions from before `method` have none).
      .where((eb) => eb.or([eb('method', 'is', null), eb('method', '<>', 'passkey')]))
      .executeTakeFirst();
    return row?.created_at ?? null;
  },

  /** When the session last gave a good step-up code; null when never. */
  async steppedUpAt(q: Q, userId: number, sessionId: number) {
    const row = await q.selectFrom('tokens').select('stepped_up_at').where('id', '=', sessionId).where('user_id', '=', userId).executeTakeFirst();
    return row?.stepped_up_at ?? null;
  },

  findUser(q: Q, userId: number) {
    return q.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  },

};
