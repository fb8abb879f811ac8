import { sql } from 'kysely';
import type { DbHandle, Trx } from '../db/schema';

/** The key functions of db/functions/idempotency.sql, which own the claim, the replay and the refusal. */
export const idempotencyRepository = {
  /** NULL when the key is now this transaction's; the stored answer of the same call; raises AWKEY for another call. */
  async claim(trx: Trx, userId: number, k: { key: string; method: string; path: string; hash: string }) {
    const { rows } = await sql<{ answer: unknown }>`SELECT idempotency_claim(${userId}, ${k.key}, ${k.method}, ${k.path}, ${k.hash}) AS answer`.execute(trx);
    return rows[0]?.answer ?? null;
  },

  /** True when the key holds the finished answer of the call with this hash (idempotency_claim would replay it). */
  async answered(db: DbHandle | Trx, userId: number, k: { key: string; hash: string }) {
    const row = await db
      .selectFrom('idempotency_keys')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('key', '=', k.key)
      .where('request_hash', '=', k.hash)
      .where('response_status', '=', 200)
      .where('response_body', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  },

  async store(trx: Trx, userId: number, key: string, answer: unknown) {
    await sql`SELECT idempotency_store(${userId}, ${key}, ${JSON.stringify(answer)}::jsonb)`.execute(trx);
  },
};
