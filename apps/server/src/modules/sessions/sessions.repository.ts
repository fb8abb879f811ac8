import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, TokenKind } from '../../db/schema';
import '../../db/tables/auth';
import type { User } from './caller';

/** The pool or a transaction: every query runs on the handle it is given. */
export type Queryable = Kysely<Database> | Transaction<Database>;

/** A session of `tokens t` that has not reached its end (token_ends_at, the rule token_user applies) by now. */
const notEnded = sql<boolean>`(token_ends_at(t.expires_at, t.last_seen_at, t.idle_seconds) > now()
  OR token_ends_at(t.expires_at, t.last_seen_at, t.idle_seconds) IS NULL)`;

/**
 * A session of `tokens t` that has shown the second factor: signed in with the code (`two_factor`) or a
 * passkey, or gave a good code since (a step-up, or the code that turned TOTP on).
 */
const showedSecondFactor = sql<boolean>`(t.method IN ('two_factor', 'passkey') OR t.stepped_up_at IS NOT NULL)`;

/** The most recent browsers remembered per user (a reset from one of them has its own minute). */
export const KNOWN_BROWSERS_MAX = 5;

/** Queries of the tokens table: sessions, new-password tokens and socket tokens. */
export const sessionsRepository = {
  /**
   * The live user behind a token of the given kind, or null: the rule itself is the SQL function
   * `token_user` (db/functions/sessions.sql), which money statements also use through `caller_id`.
   */
  async findUserByToken(q: Queryable, tokenHash: string, kind: TokenKind): Promise<User | null> {
    const { rows } = await sql<User>`SELECT * FROM token_user(${tokenHash}, ${kind})`.execute(q);
    return rows[0] ?? null;
  },

  /**
   * The caller of a request: the live user behind an access token, its session's id and how many
   * milliseconds the session has left by the database's clock (null: no end), in one statement that
   * also marks the session seen when it was last marked more than a minute ago (so a busy session
   * writes once a minute, not once a request, and idles out only unused). The time left is as of
   * before this touch, so a cached copy ends no later than the session.
   */
  async findCallerByAccessToken(q: Queryable, tokenHash: string): Promise<{ user: User; sessionId: number; endsInMs: number | null } | null> {
    const { rows } = await sql<User & { session_id: number; ends_in_ms: number | string | null }>`
      WITH caller AS (
        SELECT u.*, t.id AS session_id,
               (extract(epoch FROM token_ends_at(t.expires_at, t.last_seen_at, t.idle_seconds) - now()) * 1000)::float8 AS ends_in_ms
          FROM token_user(${tokenHash}, 'access') u JOIN tokens t ON t.token_hash = ${tokenHash}
      ), seen AS (
        UPDATE tokens t SET last_seen_at = now() FROM caller c
         WHERE t.id = c.session_id AND t.last_seen_at < now() - interval '1 minute'
      )
      SELECT * FROM caller`.execute(q);
    const row = rows[0];
    if (!row) return null;
    const { session_id, ends_in_ms, ...user } = row;
    return { user: user as User, sessionId: session_id, endsInMs: ends_in_ms === null ? null : Number(ends_in_ms) };
  },

  /**
   * Uses a socket token up (one connection each) and says whose session it serves; null when
   * `token_user` does not accept it (unknown, expired, blocked user) or the session it was given to has
   * reached its idle or hard end since: a token asked for a minute before that end must not open a
   * socket after it (the end by time notifies nobody; only the sweep would close that socket).
   */
  async takeRealtimeToken(q: Queryable, tokenHash: string): Promise<{ userId: number; sessionId: number; admin: boolean } | null> {
    const { rows } = await sql<{ user_id: number; session_id: number; admin: boolean }>`
      DELETE FROM tokens d USING token_user(${tokenHash}, 'realtime') u, tokens t
       WHERE d.token_hash = ${tokenHash} AND d.kind = 'realtime' AND d.user_id = u.id
         AND t.id = d.session_id AND t.kind = 'access' AND ${notEnded}
      RETURNING d.user_id, d.session_id, u.admin`.execute(q);
    const row = rows[0];
    return row ? { userId: row.user_id, sessionId: row.session_id, admin: row.admin } : null;
  },

  /**
   * Whether a live session's user may hear the operators now: an admin, not blocked, with TOTP on when
   * required, and then from a session that has shown it (as admin calls ask: two-factor module's proveAdminSession).
   */
  async mayHearOperators(q: Queryable, sessionId: number, requireTotp: boolean) {
    const { rows } = await sql<{ ok: boolean }>`
      SELECT u.admin AND (NOT ${requireTotp} OR (u.totp_secret IS NOT NULL AND ${showedSecondFactor})) AS ok
        FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.id = ${sessionId} AND t.kind = 'access' AND u.blocked_at IS NULL
         AND ${notEnded}`.execute(q);
    return rows[0]?.ok === true;
  },

  /** Whether the user's session has shown the second factor (an operator's admin calls ask for it). */
  async showedSecondFactor(q: Queryable, userId: number, sessionId: number) {
    const { rows } = await sql<{ ok: boolean }>`
      SELECT ${showedSecondFactor} AS ok FROM tokens t WHERE t.id = ${sessionId} AND t.user_id = ${userId}`.execute(q);
    return rows[0]?.ok === true;
  },

  /** Which of these sessions are still live (not ended, not expired, their user not blocked). */
  async liveSessions(q: Queryable, sessionIds: number[]) {
    if (sessionIds.length === 0) return [];
    const { rows } = await sql<{ id: number }>`
      SELECT t.id FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.id = ANY(${sessionIds}::int[]) AND t.kind = 'access' AND u.blocked_at IS NULL
         AND ${notEnded}`.execute(q);
    return rows.map((r) => Number(r.id));
  },

  /**
   * Locks the user's row (FOR SHARE) for the rest of the transaction, then tells whether the session
   * is still live. The check is its own statement so that it reads after the lock was granted: a
   * password reset updates the row before it ends the sessions and revokes what they made.
   */
  async holdLiveSession(q: Queryable, userId: number, sessionId: number) {
    await sql`SELECT 1 FROM users WHERE id = ${userId} FOR SHARE`.execute(q);
    return (await sessionsRepository.liveSessions(q, [sessionId])).length > 0;
  },

  /**
   * For a session that ends others: locks the user's row against the user's other such calls (FOR NO
   * KEY UPDATE: they take turns), then tells whether the calling session is still live. Two sessions
   * ending each other at once both succeeded before, and neither owner nor thief kept one.
   */
  async holdUserForEnding(q: Queryable, userId: number, sessionId: number) {
    await sessionsRepository.holdUser(q, userId);
    return (await sessionsRepository.liveSessions(q, [sessionId])).length > 0;
  },

  /** The user's row, for update: taken first by everything that ends a user's sessions (README's lock order). */
  async holdUser(q: Queryable, userId: number) {
    await sql`SELECT 1 FROM users WHERE id = ${userId} FOR NO KEY UPDATE`.execute(q);
  },

  transaction: <T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(fn),

  /**
   * Remembers that the user signed in from this browser (plugins/browser.ts), or when they last did;
   * only the user's KNOWN_BROWSERS_MAX most recent browsers are kept.
   */
  async rememberBrowser(q: Queryable, userId: number, browserHash: string) {
    await q
      .insertInto('known_browsers')
      .values({ user_id: userId, browser_hash: browserHash })
      .onConflict((oc) => oc.columns(['user_id', 'browser_hash']).doUpdateSet({ last_seen_at: sql`now()` }))
      .execute();
    // Rows another sign-in of the user is refreshing right now are skipped, not waited for: they are not the stale
    // ones, and two sign-ins each trimming the row the other refreshed deadlocked (stress round 6).
    await sql`
      DELETE FROM known_browsers k
       WHERE (k.user_id, k.browser_hash) IN (
               SELECT user_id, browser_hash FROM known_browsers
                WHERE user_id = ${userId}
                  AND browser_hash NOT IN (SELECT browser_hash FROM known_browsers WHERE user_id = ${userId}
                                            ORDER BY last_seen_at DESC, browser_hash LIMIT ${KNOWN_BROWSERS_MAX})
                  FOR UPDATE SKIP LOCKED)`.execute(q);
  },

  /** Forgets the user's browsers (a recovery: a thief's sign-ins count for nothing afterwards), but `keep`. */
  async forgetBrowsers(q: Queryable, userId: number, keep: string | null = null) {
    let query = q.deleteFrom('known_browsers').where('user_id', '=', userId);
    if (keep) query = query.where('browser_hash', '!=', keep);
    await query.execute();
  },

  /** Whether the user has signed in from this browser. */
  async isKnownBrowser(q: Queryable, userId: number, browserHash: string) {
    const row = await q.selectFrom('known_browsers').select('user_id').where('user_id', '=', userId).where('browser_hash', '=', browserHash).executeTakeFirst();
    return row !== undefined;
  },

  /**
   * A token that belongs to a session (a socket's, a download link's), written only while that session
   * exists; false when it has ended. A logout, revoke or password change may delete the session between
   * the caller's check and this insert: the foreign key then refused the row with a 500, and now the
   * caller answers 401. The session row is locked FOR KEY SHARE by the insert, so an end committed
   * meanwhile makes it find nothing and one that comes after deletes this token with its session.
   */
  async insertSessionToken(q: Queryable, userId: number, sessionId: number, kind: TokenKind, tokenHash: string, expiresAt: Date): Promise<boolean> {
    const { rows } = await sql<{ id: number }>`
      INSERT INTO tokens (user_id, kind, token_hash, expires_at, session_id)
      SELECT s.user_id, ${kind}::text, ${tokenHash}::text, ${expiresAt}::timestamptz, s.id
        FROM tokens s
       WHERE s.id = ${sessionId}::integer AND s.user_id = ${userId}::integer AND s.kind = 'access'
         FOR KEY SHARE
      RETURNING id`.execute(q);
    return rows.length === 1;
  },

  /**
   * A new session (an access token) with its hard end, idle window and where it was signed in from,
   * only while the user is unblocked and still has the password hash the sign-in was checked against;
   * false when not. The user's row is locked FOR SHARE for the statement: a reset, a password change or
   * a block (each writes that row before it ends the sessions) either commits first, and this finds
   * the row changed, or waits until this session exists, and ends it.
   */
  async insertSession(
    q: Queryable,
    s: { userId: number; passwordHash: string | null; tokenHash: string; expiresAt: Date; idleSeconds: number; method: string; ip: string | null; userAgent: string | null },
  ): Promise<boolean> {
    const { rows } = await sql<{ id: number }>`
      INSERT INTO tokens (user_id, kind, token_hash, expires_at, idle_seconds, method, ip, user_agent)
      SELECT u.id, 'access', ${s.tokenHash}::text, ${s.expiresAt}::timestamptz, ${s.idleSeconds}::integer,
             ${s.method}::text, ${s.ip}::text, ${s.userAgent}::text
        FROM users u
       WHERE u.id = ${s.userId} AND u.blocked_at IS NULL AND u.password_hash IS NOT DISTINCT FROM ${s.passwordHash}::text
         FOR SHARE
      RETURNING id`.execute(q);
    return rows.length > 0;
  },

  /** The user's live sessions, most recently seen first. */
  async listSessions(q: Queryable, userId: number) {
    const { rows } = await sql<{
      id: number;
      method: string | null;
      created_at: Date;
      last_seen_at: Date;
      ip: string | null;
      user_agent: string | null;
    }>`
      SELECT id, method, created_at, last_seen_at, ip, user_agent FROM tokens t
       WHERE t.user_id = ${userId} AND t.kind = 'access'
         AND ${notEnded}
       ORDER BY t.last_seen_at DESC, t.id DESC`.execute(q);
    return rows;
  },

  /**
   * Ends one live session of the user; says whether there was one (another user's id finds nothing, and
   * so does one already past its end that the sweep has not removed yet).
   */
  async deleteSession(q: Queryable, userId: number, sessionId: number) {
    const { rows } = await sql<{ id: number }>`
      DELETE FROM tokens t WHERE t.user_id = ${userId} AND t.id = ${sessionId} AND t.kind = 'access' AND ${notEnded}
      RETURNING t.id`.execute(q);
    return rows.length > 0;
  },

  /**
   * Ends every session of the user but one, and every sign-in still waiting for its second factor
   * (someone who had the password must not finish one afterwards); answers the ended sessions' ids.
   */
  async deleteOtherSessions(q: Queryable, userId: number, keepSessionId: number) {
    await q.deleteFrom('two_factor_challenges').where('user_id', '=', userId).execute();
    const rows = await q
      .deleteFrom('tokens')
      .where('user_id', '=', userId)
      .where('kind', '=', 'access')
      .where('id', '<>', keepSessionId)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  },

  /** The session goes on under a new token (after a password change the old bearer stops working). */
  async rotateSessionToken(q: Queryable, userId: number, sessionId: number, tokenHash: string) {
    const res = await q
      .updateTable('tokens')
      .set({ token_hash: tokenHash })
      .where('user_id', '=', userId)
      .where('id', '=', sessionId)
      .where('kind', '=', 'access')
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  },

  /**
   * Deletes every session past its end at `at` (token_ends_at, the rule token_user applies) and
   * answers them: the sweep tells their sockets. A scan of the access tokens; see decision record 0018.
   */
  /** `at`: the database's `now()` when not given (a test's clock when given). */
  async deleteEndedSessions(q: Queryable, at?: Date) {
    const { rows } = await sql<{ id: number; user_id: number }>`
      DELETE FROM tokens t WHERE t.kind = 'access' AND token_ends_at(t.expires_at, t.last_seen_at, t.idle_seconds) <= ${at ?? sql`now()`}
      RETURNING t.id, t.user_id`.execute(q);
    return rows;
  },

  /** `sessionId`: the session the token was asked from; it ends with that session (ON DELETE CASCADE). */
  insertToken(q: Queryable, userId: number, kind: TokenKind, tokenHash: string, expiresAt: Date | null, sessionId: number | null = null) {
    return q.insertInto('tokens').values({ user_id: userId, kind, token_hash: tokenHash, expires_at: expiresAt, session_id: sessionId }).execute();
  },

  /**
   * Whose live token of that kind this is, blocked or not (the caller decides what a block means), or
   * null; read without a lock.
   */
  async liveTokenUser(q: Queryable, tokenHash: string, kind: TokenKind, now: Date): Promise<number | null> {
    const row = await q
      .selectFrom('tokens')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst();
    return row?.user_id ?? null;
  },

  /** Removes a live token and says whose it was: a token used this way works exactly once. */
  async takeToken(q: Queryable, tokenHash: string, kind: TokenKind, now: Date): Promise<number | null> {
    const row = await q
      .deleteFrom('tokens')
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .returning(['user_id'])
      .executeTakeFirst();
    return row?.user_id ?? null;
  },

  /** Deletes one token; answers its id, or null when there was none. */
  async deleteToken(q: Queryable, tokenHash: string, kind: TokenKind) {
    const row = await q.deleteFrom('tokens').where('token_hash', '=', tokenHash).where('kind', '=', kind).returning('id').executeTakeFirst();
    return row?.id ?? null;
  },

  /** Whose token this is (expired or not); null when there is none. */
  async tokenOwner(q: Queryable, tokenHash: string, kind: TokenKind) {
    const row = await q.selectFrom('tokens').select('user_id').where('token_hash', '=', tokenHash).where('kind', '=', kind).executeTakeFirst();
    return row?.user_id ?? null;
  },

  /** The user's tokens of one kind, gone (a password change: a reset's new-password tokens). */
  async deleteTokensOfKind(q: Queryable, userId: number, kind: TokenKind) {
    await q.deleteFrom('tokens').where('user_id', '=', userId).where('kind', '=', kind).execute();
  },

  /**
   * Every session, socket token and pending new-password token of the user, and every sign-in
   * waiting for its second factor; answers the ended sessions' ids.
   */
  async deleteAllTokens(q: Queryable, userId: number) {
    await q.deleteFrom('two_factor_challenges').where('user_id', '=', userId).execute();
    const rows = await q.deleteFrom('tokens').where('user_id', '=', userId).returning(['id', 'kind']).execute();
    return rows.filter((r) => r.kind === 'access').map((r) => r.id);
  },
};
