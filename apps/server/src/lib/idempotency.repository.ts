import { sql } from 'kysely';
import type { Trx } from '../db/schema';

/** The key functions of db/functions/idempotency.sql, which own the claim, the replay and the refusal. */
export const idempotencyRepository = {
  /** NULL when the key is now this transaction's; the stored answer of the same call; raises AWKEY for another call. */
  async claim(trx: Trx, userId: number, k: { key: string; method: string; path: string; hash: string }) {
    const { rows } = await sql<{ answer: unknown }>`SELECT idempotency_claim(${userId}, ${k.key}, ${k.method}, ${k.path}, ${k.hash}) AS answer`.execute(trx);
    return rows[0]?.answer ?? null;
  },

  async store(trx: Trx, userId: number, key: string, answer: unknown) {
    await sql`SELECT idempotency_store(${userId}, ${key}, ${JSON.stringify(answer)}::jsonb)`.execute(trx);
  },
};
