import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/jobs';

/** The database or a transaction of it: a job enqueued in a transaction exists once that commits. */
export type Q = Kysely<Database> | Transaction<Database>;
export type JobsDb = Kysely<Database>;

export interface NewJob {
  kind: string;
  payload: unknown;
  key: string | null;
  group: string | null;
  runAt: Date;
  maxAttempts: number;
  giveUpAt: Date;
  createdAt: Date;
}

export interface ClaimedJob {
  id: bigint;
  kind: string;
  payload: unknown;
  key: string | null;
  /** Counting this one. */
  attempts: number;
  max_attempts: number;
  give_up_at: Date;
  created_at: Date;
}

export const jobsRepository = {
  /** The new job's id, or null when a pending or running job already holds the key. */
  async insert(q: Q, job: NewJob): Promise<bigint | null> {
    const r = await sql<{ id: bigint }>`
      INSERT INTO jobs (kind, payload, key, grp, run_at, max_attempts, give_up_at, created_at)
      VALUES (${job.kind}, ${JSON.stringify(job.payload ?? null)}::jsonb, ${job.key}, ${job.group}, ${job.runAt}, ${job.maxAttempts},
              ${job.giveUpAt}, ${job.createdAt})
      ON CONFLICT (key) WHERE key IS NOT NULL AND state IN ('pending', 'running') DO NOTHING
      RETURNING id`.execute(q);
    return r.rows[0]?.id ?? null;
  },

  /**
   * Takes the earliest due job of the given kinds: a pending one whose time has come, or a running
   * one whose lease ended (its process died), and of a group (`grp`) only its first due job while
   * none of it runs, so a group's jobs run one at a time. SKIP LOCKED lets parallel workers pass over the row
   * another worker is claiming instead of waiting for it; the claim token and the new lease are
   * written in the same statement, so the claim is committed when this returns.
   */
  async claim(q: Q, c: { kinds: string[]; now: Date; leaseUntil: Date; claim: string }): Promise<ClaimedJob | undefined> {
    if (c.kinds.length === 0) return undefined;
    const r = await sql<ClaimedJob>`
      UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, claim = ${c.claim}, run_at = ${c.leaseUntil}
      FROM (
        SELECT id FROM jobs
        WHERE state IN ('pending', 'running') AND run_at <= ${c.now} AND kind IN (${sql.join(c.kinds)})
          -- A job of a group only while none of the group runs under a live lease, and only the group's
          -- first due job: two workers claiming at once both pick that one, and SKIP LOCKED leaves the
          -- second without any job of the group rather than with the next one.
          AND (grp IS NULL OR (
            NOT EXISTS (SELECT FROM jobs r WHERE r.grp = jobs.grp AND r.state = 'running' AND r.run_at > ${c.now})
            AND id = (SELECT min(h.id) FROM jobs h WHERE h.grp = jobs.grp AND h.state IN ('pending', 'running') AND h.run_at <= ${c.now})))
        ORDER BY run_at, id LIMIT 1
        FOR UPDATE SKIP LOCKED
      ) due
      WHERE j.id = due.id
      RETURNING j.id, j.kind, j.payload, j.key, j.attempts, j.max_attempts, j.give_up_at, j.created_at`.execute(q);
    return r.rows[0];
  },

  /** Removes a finished job; false when the claim is no longer this worker's (its lease ended). */
  async remove(q: Q, id: bigint, claim: string): Promise<boolean> {
    const r = await q.deleteFrom('jobs').where('id', '=', id).where('claim', '=', claim).executeTakeFirst();
    return r.numDeletedRows > 0n;
  },

  async retry(q: Q, id: bigint, claim: string, runAt: Date, error: string): Promise<boolean> {
    const r = await q
      .updateTable('jobs')
      .set({ state: 'pending', run_at: runAt, claim: null, last_error: error })
      .where('id', '=', id)
      .where('claim', '=', claim)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  /** Hands a claimed job back untouched: due again at `runAt`, and this claim's try not counted. */
  async release(q: Q, id: bigint, claim: string, runAt: Date): Promise<boolean> {
    const r = await q
      .updateTable('jobs')
      .set((eb) => ({ state: 'pending', run_at: runAt, claim: null, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', id)
      .where('claim', '=', claim)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  /** `scrub`: the payload is replaced by `{}` (a secret, even sealed, is not kept in a failed row). */
  async fail(q: Q, id: bigint, claim: string, at: Date, error: string, scrub = false): Promise<boolean> {
    const r = await q
      .updateTable('jobs')
      .set({ state: 'failed', failed_at: at, claim: null, last_error: error, ...(scrub ? { payload: '{}' } : {}) })
      .where('id', '=', id)
      .where('claim', '=', claim)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  transaction<T>(db: JobsDb, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return db.transaction().execute(fn);
  },
};
