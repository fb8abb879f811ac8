import { type Kysely, type RawBuilder, sql } from 'kysely';
import { SELLER_IDEMPOTENCY_DAYS } from '@adena/contract/lite';
import type { Database } from '../../db/schema';
import '../../db/tables/auth';
import '../../db/tables/codes';
import '../../db/tables/jobs';
import '../../db/tables/second-factors';
import '../../db/tables/seller';

const DAY_MS = 24 * 60 * 60_000;
/** Log rows one statement deletes, and how long one purge keeps deleting them. */
export const LOG_BATCH = 5000;
const LOG_PURGE_MS = 20_000;
const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);

/**
 * Deletes what has expired and is never read again, one statement per table. Each table's owner
 * decides what "expired" means (tokens and flows by expires_at, idempotency keys after a day); the
 * queries are kept here, with the recurring job, so one file lists everything purged.
 */
export const purgeRepository = {
  /** The database's clock: what every age below is measured from. */
  async databaseNow(db: Kysely<Database>): Promise<Date> {
    const r = await sql<{ now: Date }>`SELECT now() AS now`.execute(db);
    return r.rows[0]!.now;
  },

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

  /**
   * The web app retries a call within minutes, so its day-old keys answer nobody. A seller's program
   * keys a call by its order (the guide says so) and may send it again much later (a queue redelivery,
   * a replay after an outage), so the seller API's keys (`/api/v1/…`) are kept SELLER_IDEMPOTENCY_DAYS.
   */
  async oldIdempotencyKeys(db: Kysely<Database>, now: Date) {
    const r = await db
      .deleteFrom('idempotency_keys')
      .where((eb) =>
        eb.or([
          eb('created_at', '<', ago(now, SELLER_IDEMPOTENCY_DAYS * DAY_MS)),
          eb.and([eb('created_at', '<', ago(now, DAY_MS)), eb('path', 'not like', '/api/v1/%')]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  /** A browser's cookie lives at most 400 days (plugins/browser.ts): a sign-in from it older than that is no sign of its owner. */
  async forgottenBrowsers(db: Kysely<Database>, now: Date) {
    const r = await db.deleteFrom('known_browsers').where('last_seen_at', '<', ago(now, 400 * DAY_MS)).executeTakeFirst();
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
   * Deleted `batch` rows a statement, so that the first purge of a log that has grown for
   * months stays within the pool's statement limit and holds its rows' locks only briefly; a purge
   * stops after `LOG_PURGE_MS` and the next one, ten minutes later, goes on.
   */
  async oldLogs(db: Kysely<Database>, now: Date, batch = LOG_BATCH) {
    const month = ago(now, 30 * DAY_MS);
    const until = Date.now() + LOG_PURGE_MS;
    let n = 0;
    const drain = async (step: () => Promise<bigint>) => {
      for (let done = batch; done === batch && Date.now() < until; ) {
        done = Number(await step());
        n += done;
      }
    };
    const inBatches = (table: 'code_attempts' | 'telegram_notices' | 'webhook_deliveries' | 'api_key_calls', old: RawBuilder<boolean>) =>
      drain(async () => {
        const r = await sql`DELETE FROM ${sql.table(table)} WHERE id IN (SELECT id FROM ${sql.table(table)} WHERE ${old} LIMIT ${batch})`.execute(db);
        return r.numAffectedRows ?? 0n;
      });
    await inBatches('code_attempts', sql<boolean>`code_id IS NULL AND created_at < ${month}`);
    await inBatches('telegram_notices', sql<boolean>`status <> 'pending' AND created_at < ${month}`);
    await inBatches('webhook_deliveries', sql<boolean>`status <> 'pending' AND created_at < ${month}`);
    await inBatches('api_key_calls', sql<boolean>`created_at < ${ago(now, 90 * DAY_MS)}`);
    return n;
  },

  /**
   * A seller's delivery still pending `horizonMs` after its event has lost its job: the job failed
   * for good (its result could not be recorded while the database was away, or the processes running
   * it kept stopping) after the delivery's own three days. It is marked failed, so the seller's
   * delivery log shows its end and the log purge takes it after 30 days.
   */
  async abandonedDeliveries(db: Kysely<Database>, now: Date, horizonMs: number) {
    const r = await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: 'expired', next_attempt_at: null })
      .where('status', '=', 'pending')
      .where('created_at', '<', ago(now, horizonMs))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
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
