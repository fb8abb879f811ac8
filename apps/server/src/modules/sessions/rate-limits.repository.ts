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
