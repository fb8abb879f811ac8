-- Foundation: people, game servers and their wallets. Later migrations add the rest.

CREATE TABLE users (
  id               serial PRIMARY KEY,
  name             text NOT NULL DEFAULT '',
  email            text UNIQUE,
  phone            text UNIQUE,
  password_hash    text,
  admin            boolean NOT NULL DEFAULT false,
  vip_until        timestamptz,
  blocked_at       timestamptz,
  telegram_id      bigint UNIQUE,
  telegram_chat_id bigint,
  discord_id       text UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (email IS NULL OR email = lower(email))
);

CREATE TABLE gamesservers (
  id                serial PRIMARY KEY,
  name              text NOT NULL UNIQUE,
  active            boolean NOT NULL DEFAULT true,
  sort_order        integer NOT NULL DEFAULT 0,
  cashier_nick      text NOT NULL,
  -- { "input": { "1": { "min": n, "max": n }, "2": {...} }, "output": {...} }
  limits            jsonb NOT NULL,
  code_fee_bp       integer NOT NULL DEFAULT 300 CHECK (code_fee_bp BETWEEN 0 AND 10000),
  vip_code_fee_bp   integer NOT NULL DEFAULT 100 CHECK (vip_code_fee_bp BETWEEN 0 AND 10000),
  min_nominal       bigint NOT NULL DEFAULT 1000000 CHECK (min_nominal > 0),
  standard_nominals jsonb NOT NULL DEFAULT '[]',
  vip_price         bigint NOT NULL DEFAULT 100 CHECK (vip_price > 0),
  vip_period_days   integer NOT NULL DEFAULT 30 CHECK (vip_period_days > 0),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE wallets (
  id             serial PRIMARY KEY,
  user_id        integer NOT NULL REFERENCES users(id),
  gamesserver_id integer NOT NULL REFERENCES gamesservers(id),
  nick           text,
  -- Cached balances; the ledger writes them in the same transaction as its entries.
  -- The CHECKs make the database itself refuse an overdraft, whatever the code does.
  balance        bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  balance_second bigint NOT NULL DEFAULT 0 CHECK (balance_second >= 0),
  new_message    boolean NOT NULL DEFAULT false,
  telegram_price bigint CHECK (telegram_price IS NULL OR telegram_price > 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, gamesserver_id)
);

-- Bearer tokens of every kind, stored only as SHA-256 of the random token.
-- kind: 'access' (a session), 'new_password' (last step of a reset), 'realtime' (socket auth).
CREATE TABLE tokens (
  id           serial PRIMARY KEY,
  user_id      integer NOT NULL REFERENCES users(id),
  kind         text NOT NULL CHECK (kind IN ('access', 'new_password', 'realtime')),
  token_hash   text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz
);
CREATE INDEX tokens_user_kind ON tokens (user_id, kind);

-- Used only by the Socket.IO PostgreSQL adapter when DATABASE_URL is set.
CREATE TABLE socket_io_attachments (
  id         bigserial UNIQUE,
  created_at timestamptz DEFAULT now(),
  payload    bytea
);
