import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema';

export function createSystemRepository(db: Kysely<Database>) {
  return {
    listActiveServers() {
      return db
        .selectFrom('gamesservers')
        .selectAll()
        .where('active', '=', true)
        .orderBy('sort_order')
        .orderBy('id')
        .execute();
    },

    /** Median minutes from a request's creation to an operator finishing it, per server, last 24 hours. */
    async medianProcessingMinutes(): Promise<Map<number, number>> {
      const rows = await sql<{ gamesserver_id: number; minutes: number }>`
        SELECT gamesserver_id,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - created_at)) / 60 AS minutes
        FROM balance_requests
        WHERE status IN ('completed', 'rejected') AND processed_at > now() - interval '24 hours'
        GROUP BY gamesserver_id`.execute(db);
      return new Map(rows.rows.map((r) => [r.gamesserver_id, Math.max(1, Math.round(Number(r.minutes)))]));
    },
  };
}
