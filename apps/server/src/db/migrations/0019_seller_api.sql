-- The seller API and webhooks (PRODUCT.md section 10, decision record 0022).
-- Written for PostgreSQL 15 (Debian) and 18 (PGlite) alike. The user columns carry no foreign key:
-- users are never deleted (a trigger refuses it) and a foreign-key check would share-lock the user's
-- row on every key call and every event written inside a money transaction (decision record 0014).

-- An API key: `aw_` + 256 random bits, kept only as its SHA-256. Revoking sets revoked_at; the row
-- stays so the call log keeps naming the key.
CREATE TABLE api_keys (
  id           serial PRIMARY KEY,
  user_id      integer NOT NULL,
  name         text NOT NULL,
  prefix       text NOT NULL,
  key_hash     text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_owner ON api_keys (user_id, id) WHERE revoked_at IS NULL;

-- Every call made with a key, with its outcome: who did what through which key.
CREATE TABLE api_key_calls (
  id          bigserial PRIMARY KEY,
  api_key_id  integer NOT NULL,
  user_id     integer NOT NULL,
  method      text NOT NULL,
  path        text NOT NULL,
  status_code integer NOT NULL,
  ip          text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_key_calls_key ON api_key_calls (api_key_id, id);
CREATE INDEX api_key_calls_created ON api_key_calls (created_at);

-- One endpoint per user. The secret must be read to sign, so it is stored as issued.
CREATE TABLE webhooks (
  user_id    integer PRIMARY KEY,
  url        text NOT NULL,
  events     text[] NOT NULL,
  secret     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The outbox: an event is written here in the transaction of the change it reports, with the job
-- that delivers it; the job updates the row after each attempt, which is the seller's delivery log.
CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  user_id          integer NOT NULL,
  type             text NOT NULL,
  body             text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error       text,
  next_attempt_at  timestamptz,
  created_at       timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_owner ON webhook_deliveries (user_id, id);

-- The seller's own order number of a code issued through the API.
ALTER TABLE codes ADD COLUMN external_id text;
