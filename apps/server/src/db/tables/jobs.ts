import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../schema';

// 0014_jobs: the job queue (decision record 0016).
declare module '../schema' {
  interface Database {
    jobs: JobsTable;
  }
}

export type JobState = 'pending' | 'running' | 'failed';

export interface JobsTable {
  id: ColumnType<bigint, never, never>;
  kind: string;
  /** jsonb: written as JSON text, read back parsed. */
  payload: ColumnType<unknown, string, string>;
  key: string | null;
  /** While a job of this group runs, no other of it is claimed (migration 0029). */
  grp: ColumnType<string | null, string | null | undefined, string | null>;
  state: ColumnType<JobState, JobState | undefined, JobState>;
  run_at: Timestamp;
  attempts: Generated<number>;
  max_attempts: number;
  give_up_at: Timestamp;
  claim: string | null;
  last_error: string | null;
  created_at: Timestamp;
  failed_at: NullableTimestamp;
}
