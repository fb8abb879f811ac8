import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/jobs';

/** The database or a transaction of it: a job enqueued in a transaction exists once that commits. */
export type Q = Kysely<Database> | Transaction<Database>;
export type JobsDb = Kysely<Database>;

/**
 * The moment the queue's times are computed from: undefined is the database's clock (`now()`), the
 * same for every process sharing it (decision record 0016); a Date is a test's clock (`JobsOptions.dbNow`).
 */
export type At = Date | undefined;

/** `at` as SQL: `now()`, or the test's moment. */
const nowOf = (at: At) => (at === undefined ? sql<Date>`now()` : sql<Date>`${at}::timestamptz`);
/** `ms` after `at`, computed by the database. */
const after = (at: At, ms: number) => sql<Date>`(${nowOf(at)} + make_interval(secs => ${ms}::float8 / 1000))`;

export interface NewJob {
  kind: string;
  payload: unknown;
  key: string | null;
  group: string | null;
  /** Due at this moment; null: `delayMs` after `at`. */
  runAt: Date | null;
  delayMs: number;
  maxAttempts: number;
  /** A failure later than this long after `at` is final. */
  maxAgeMs: number;
  at: At;
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
      VALUES (${job.kind}, ${JSON.stringify(job.payload ?? null)}::jsonb, ${job.key}, ${job.group},
              ${job.runAt === null ? after(job.at, job.delayMs) : job.runAt}, ${job.maxAttempts}, ${after(job.at, job.maxAgeMs)}, ${nowOf(job.at)})
      ON CONFLICT (key) WHERE key IS NOT NULL AND state IN ('pending', 'running') DO NOTHING
      RETURNING id`.execute(q);
    return r.rows[0]?.id ?? null;
  },

  /**
   * Deletes the jobs of a kind whose payload's `ref` is this that are not under way: pending, or running
   * under a lease that ended (their process died; another worker would take them over); how many.
   */
  async deletePendingByRef(q: Q, kind: string, ref: string, at: At): Promise<number> {
    const r = await sql`
      DELETE FROM jobs
       WHERE kind = ${kind} AND payload->>'ref' = ${ref}
         AND (state = 'pending' OR (state = 'running' AND run_at <= ${nowOf(at)}))`.execute(q);
    return Number(r.numAffectedRows ?? 0);
  },

  /**
   * Takes the earliest due job of the given kinds: a pending one whose time has come, or a running
   * one whose lease ended (its process died), and of a group (`grp`) only its first due job while
   * none of it runs, so a group's jobs run one at a time. SKIP LOCKED lets parallel workers pass over the row
   * another worker is claiming instead of waiting for it; the claim token and the new lease are
   * written in the same statement, so the claim is committed when this returns. "Due" and the lease's
   * end are both the database's time (`c.at` only in tests): a process whose clock is ahead of
   * another's by more than a lease must not see that one's running job as abandoned.
   *
   * The locking SELECT is a MATERIALIZED CTE so that it runs once. As a subquery joined to `jobs j`, the
   * planner put it on the inner side of a nested loop whenever the table's statistics said about one row
   * (an analyzed, nearly empty queue: the usual state), rescanned it for every row of `j`, and each rescan
   * locked the next due job: one claim took every due job and ran the first, the others waited out their lease.
   *
   * A job of a group only while none of the group runs under a live lease, and only the group's first due job:
   * two workers claiming at once both pick that one, and SKIP LOCKED leaves the second without any job of the
   * group rather than with the next one. For the one job chosen, what the statement's snapshot showed is asked
   * again under the group's lock by `job_group_turn` (db/functions/jobs.sql); refused (another worker's claim of
   * the group was on its way), the claim takes nothing this time, and the next one sees that claim. The turn is a
   * MATERIALIZED CTE of its own: as a condition of the UPDATE's join it was pushed into the rescanned CTE scan
   * and asked once per row of the table (diff review 14).
   */
  async claim(q: Q, c: { kinds: string[]; at: At; leaseMs: number; claim: string }): Promise<ClaimedJob | undefined> {
    if (c.kinds.length === 0) return undefined;
    const now = nowOf(c.at);
    const r = await sql<ClaimedJob>`
      WITH due AS MATERIALIZED (
        SELECT id, grp FROM jobs
        WHERE state IN ('pending', 'running') AND run_at <= ${now} AND kind IN (${sql.join(c.kinds)})
          AND (grp IS NULL OR (
            NOT EXISTS (SELECT FROM jobs r WHERE r.grp = jobs.grp AND r.state = 'running' AND r.run_at > ${now})
            AND id = (SELECT min(h.id) FROM jobs h WHERE h.grp = jobs.grp AND h.state IN ('pending', 'running') AND h.run_at <= ${now})))
        ORDER BY run_at, id LIMIT 1
        FOR UPDATE SKIP LOCKED
      ),
      turn AS MATERIALIZED (SELECT id FROM due WHERE grp IS NULL OR job_group_turn(grp, id, ${now}))
      UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, claim = ${c.claim}, run_at = ${after(c.at, c.leaseMs)}
      FROM turn
      WHERE j.id = turn.id
      RETURNING j.id, j.kind, j.payload, j.key, j.attempts, j.max_attempts, j.give_up_at, j.created_at`.execute(q);
    return r.rows[0];
  },

  /** Removes a finished job; false when the claim is no longer this worker's (its lease ended). */
  async remove(q: Q, id: bigint, claim: string): Promise<boolean> {
    const r = await q.deleteFrom('jobs').where('id', '=', id).where('claim', '=', claim).executeTakeFirst();
    return r.numDeletedRows > 0n;
  },

  /**
   * Hands a failed job back to be tried `delayMs` from now (the database's now), unless that is past
   * its `give_up_at`: the new due time, 'late' (the caller fails it instead), or null when the claim
   * is no longer this worker's.
   */
  async retry(q: Q, id: bigint, claim: string, delayMs: number, error: string, at: At): Promise<Date | 'late' | null> {
    const r = await sql<{ next: Date; retried: boolean }>`
      WITH mine AS (SELECT id, ${after(at, delayMs)} AS next FROM jobs WHERE id = ${id} AND claim = ${claim}),
      retried AS (
        UPDATE jobs j SET state = 'pending', run_at = mine.next, claim = NULL, last_error = ${error}
        FROM mine
        WHERE j.id = mine.id AND j.claim = ${claim} AND mine.next <= j.give_up_at
        RETURNING j.id
      )
      SELECT mine.next, EXISTS (SELECT FROM retried) AS retried FROM mine`.execute(q);
    const row = r.rows[0];
    if (!row) return null;
    return row.retried ? row.next : 'late';
  },

  /** Hands a claimed job back untouched: due again at once (the database's now), and this claim's try not counted. */
  async release(q: Q, id: bigint, claim: string, at: At): Promise<boolean> {
    const r = await q
      .updateTable('jobs')
      .set((eb) => ({ state: 'pending', run_at: nowOf(at), claim: null, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', id)
      .where('claim', '=', claim)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  /** `scrub`: the payload is replaced by `{}` (a secret, even sealed, is not kept in a failed row). `failed_at` is the database's now. */
  async fail(q: Q, id: bigint, claim: string, at: At, error: string, scrub = false): Promise<boolean> {
    const r = await q
      .updateTable('jobs')
      .set({ state: 'failed', failed_at: nowOf(at), claim: null, last_error: error, ...(scrub ? { payload: '{}' } : {}) })
      .where('id', '=', id)
      .where('claim', '=', claim)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  transaction<T>(db: JobsDb, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return db.transaction().execute(fn);
  },
};
