-- The live definitions of the PL/pgSQL functions sit in db/functions/*.sql, one file per concern;
-- migrate.ts applies a file again whenever its text changes and notes here which text it applied.
CREATE TABLE schema_functions (
  name       text PRIMARY KEY,
  sha256     text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- One answer format for every Idempotency-Key: the answer as jsonb, written and read only by the
-- functions of db/functions/idempotency.sql.
ALTER TABLE idempotency_keys ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb;
