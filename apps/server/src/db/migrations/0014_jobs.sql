-- The job queue: background work that any app process may run, each job by one process at a time.
-- Written for PostgreSQL 15 (Debian) and 18 (PGlite) alike; see decision record 0016.
--
-- A job is 'pending' until a worker claims it (SELECT … FOR UPDATE SKIP LOCKED inside the claiming
-- UPDATE), then 'running' with a lease: run_at is moved to the end of the lease and claim holds the
-- claim's random token, so a job whose process died becomes due again when its lease ends, and only
-- the holder of the current claim may finish it. A finished job is deleted; one that used up its
-- attempts or its time stays as 'failed' for an operator to read.
CREATE TABLE jobs (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Deduplication: at most one pending or running job per key.
  key          text,
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'failed')),
  run_at       timestamptz NOT NULL,
  attempts     integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts integer NOT NULL CHECK (max_attempts > 0),
  -- After this moment a failed attempt is not retried.
  give_up_at   timestamptz NOT NULL,
  claim        text,
  last_error   text,
  created_at   timestamptz NOT NULL,
  failed_at    timestamptz
);
CREATE UNIQUE INDEX jobs_live_key ON jobs (key) WHERE key IS NOT NULL AND state IN ('pending', 'running');
CREATE INDEX jobs_due ON jobs (run_at) WHERE state IN ('pending', 'running');
CREATE INDEX jobs_failed ON jobs (failed_at) WHERE state = 'failed';
