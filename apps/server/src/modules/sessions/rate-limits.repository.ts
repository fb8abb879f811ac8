import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';

export type RateLimitsQueryable = Kysely<Database> | Transaction<Database>;
type Q = RateLimitsQueryable;

/** Queries of the fixed-window counters in `rate_limits`. */
export const rateLimitsRepository = {
  /**
   * Counts one hit in a fixed window and returns the count and the window's start. One
   * statement, so two processes hitting the same key at once both get counted.
   */
  async hit(q: Q, key: string, windowMs: number, now: Date) {
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

  /**
   * A try with a progressive delay (`window_start` is the last try): the first `free` tries of a
   * key pass, then each waits `baseMs` × 2^(tries − free), at most `maxMs`, after the one before;
   * a key quiet for `resetMs` starts over. One statement, so parallel tries cannot all slip
   * through: true when this try was counted, false when it must wait.
   */
  async claimTry(q: Q, key: string, rule: { free: number; baseMs: number; maxMs: number; resetMs: number }, now: Date) {
    const reset = new Date(now.getTime() - rule.resetMs);
    const { rows } = await sql<{ hits: number }>`
      INSERT INTO rate_limits AS r (key, hits, window_start) VALUES (${key}, 1, ${now})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN r.window_start <= ${reset} THEN 1 ELSE r.hits + 1 END,
        window_start = ${now}
      WHERE r.window_start <= ${reset}
         OR r.hits < ${rule.free}::int
         OR r.window_start + make_interval(secs => least(${rule.maxMs}::float8, ${rule.baseMs}::float8 * power(2, least(r.hits - ${rule.free}::int, 40))) / 1000) <= ${now}
      RETURNING hits`.execute(q);
    return rows.length > 0;
  },

  /** Gives back one hit counted in the window that started at `windowStart` (none once a new window began). */
  async refundHit(q: Q, key: string, windowStart: Date) {
    await sql`UPDATE rate_limits SET hits = greatest(hits - 1, 0) WHERE key = ${key} AND window_start = ${windowStart}`.execute(q);
  },

  /** Gives back one counted try (a success must not use up the address's allowance). */
  async refundTry(q: Q, key: string) {
    await sql`UPDATE rate_limits SET hits = greatest(hits - 1, 0) WHERE key = ${key}`.execute(q);
  },

  /**
   * Adds each key's hits in one statement and answers every key's total in its current window
   * (a key whose window has passed starts a new one): the per-call limits' batched sync.
   */
  async addHits(q: Q, batch: Array<{ key: string; hits: number }>, windowMs: number, now: Date) {
    if (batch.length === 0) return [];
    // In key order: two processes syncing the same keys lock their rows in the same order, so their
    // upserts wait for each other instead of deadlocking.
    const sorted = [...batch].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const cutoff = new Date(now.getTime() - windowMs);
    const { rows } = await sql<{ key: string; hits: number; window_start: Date }>`
      INSERT INTO rate_limits AS r (key, hits, window_start)
      SELECT k, h, ${now}::timestamptz FROM unnest(${sorted.map((b) => b.key)}::text[], ${sorted.map((b) => b.hits)}::int[]) AS t(k, h)
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN r.window_start > ${cutoff} THEN r.hits + excluded.hits ELSE excluded.hits END,
        window_start = CASE WHEN r.window_start > ${cutoff} THEN r.window_start ELSE excluded.window_start END
      RETURNING key, hits, window_start`.execute(q);
    return rows.map((r) => ({ key: r.key, hits: Number(r.hits), windowStart: new Date(r.window_start) }));
  },

  peek(q: Q, key: string) {
    return q.selectFrom('rate_limits').select(['hits', 'window_start']).where('key', '=', key).executeTakeFirst();
  },

  clear(q: Q, key: string) {
    return q.deleteFrom('rate_limits').where('key', '=', key).execute();
  },
  /** Windows a day old are of no use to any rule. */
  async sweep(q: Q, now: Date) {
    await q
      .deleteFrom('rate_limits')
      .where('window_start', '<', new Date(now.getTime() - 24 * 60 * 60_000))
      .execute();
  },
};
