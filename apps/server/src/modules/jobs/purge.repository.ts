import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/auth';
import '../../db/tables/codes';
import '../../db/tables/jobs';
import '../../db/tables/second-factors';
import '../../db/tables/seller';

const DAY_MS = 24 * 60 * 60_000;
const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);

/**
 * Deletes what has expired and is never read again, one statement per table. Each table's owner
 * decides what "expired" means (tokens and flows by expires_at, idempotency keys after a day); the
 * queries are kept here, with the recurring job, so one file lists everything purged.
 */
export const purgeRepository = {
  /** Not sessions: the sessions sweep ends those and tells their sockets (decision record 0018). */
  async expiredTokens(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('tokens').where('kind', '<>', 'access').where('expires_at', '<', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  /** Pending two-factor sign-ins and WebAuthn challenges past their time (0021). */
  async expiredSecondFactorChallenges(db: Kysely<Database>, now: Date) {
    const a = await db.deleteFrom('two_factor_challenges').where('expires_at', '<', now).executeTakeFirst();
    const b = await db.deleteFrom('webauthn_challenges').where('expires_at', '<', now).executeTakeFirst();
    return Number(a.numDeletedRows + b.numDeletedRows);
  },

  async expiredAuthFlows(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('auth_flows').where('expires_at', '<', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  async expiredOauthStates(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('oauth_states').where('expires_at', '<', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  async expiredTelegramLinks(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('telegram_link_tokens').where('expires_at', '<', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  /** A client retries a call within minutes; a day-old key answers nobody. */
  async oldIdempotencyKeys(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', ago(now, DAY_MS)).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  /** Fixed rate-limit windows are never longer than a day. */
  async oldRateWindows(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('rate_limits').where('window_start', '<', ago(now, DAY_MS)).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  /**
   * Logs kept for a while, then removed (migration 0027): gift-code guesses that matched no code
   * after 30 days (tries of a real code are kept: the code's card shows them), Telegram notices no
   * longer pending and sellers' finished webhook deliveries after 30 days, key calls after 90.
   */
  async oldLogs(db: Kysely<Database>, now: Date) {
    const month = ago(now, 30 * DAY_MS);
    const guesses = await db.deleteFrom('code_attempts').where('code_id', 'is', null).where('created_at', '<', month).executeTakeFirst();
    const notices = await db.deleteFrom('telegram_notices').where('status', '<>', 'pending').where('created_at', '<', month).executeTakeFirst();
    const deliveries = await db.deleteFrom('webhook_deliveries').where('status', '<>', 'pending').where('created_at', '<', month).executeTakeFirst();
    const calls = await db.deleteFrom('api_key_calls').where('created_at', '<', ago(now, 90 * DAY_MS)).executeTakeFirst();
    return Number(guesses.numDeletedRows + notices.numDeletedRows + deliveries.numDeletedRows + calls.numDeletedRows);
  },

  /** Failed jobs are kept a month for operators to read. */
  async oldFailedJobs(db: Kysely<Database>, now: Date) {
    const r = await db
      .deleteFrom('jobs')
      .where('state', '=', 'failed')
      .where('failed_at', '<', ago(now, 30 * DAY_MS))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },
};
