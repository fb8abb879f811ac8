-- Gift codes: codes and user variants (pricekods), the log of activation attempts, incidents
-- for issuers, Telegram balance notices and the one-time tokens that link a Telegram chat.
-- Written for PostgreSQL 15 (Debian) and 18 (PGlite) alike.

-- A user variant: a batch of codes of the user's own nominal on one server. Its count and open
-- count are read from its codes; deleting it cancels the open ones and hides the batch.
CREATE TABLE pricekods (
  id             serial PRIMARY KEY,
  user_id        integer NOT NULL REFERENCES users(id),
  wallet_id      integer NOT NULL REFERENCES wallets(id),
  gamesserver_id integer NOT NULL REFERENCES gamesservers(id),
  nominal        bigint NOT NULL CHECK (nominal > 0),
  deleted_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pricekods_owner ON pricekods (user_id, gamesserver_id, id) WHERE deleted_at IS NULL;

-- A bearer certificate of `nominal` adena on one server. While it is 'active' its nominal sits
-- on the server's escrow account and its fee on the fees account (the ledger audit checks that
-- escrow equals the nominal of the active codes). A status leaves 'active' exactly once, by an
-- UPDATE ... WHERE status = 'active', so two activations (or an activation and a cancel) can
-- never both move the money.
CREATE TABLE codes (
  id                  serial PRIMARY KEY,
  sert                text NOT NULL UNIQUE,
  -- The issuer and the wallet that paid.
  user_id             integer NOT NULL REFERENCES users(id),
  wallet_id           integer NOT NULL REFERENCES wallets(id),
  gamesserver_id      integer NOT NULL REFERENCES gamesservers(id),
  nominal             bigint NOT NULL CHECK (nominal > 0),
  fee                 bigint NOT NULL CHECK (fee >= 0),
  -- What the issuer paid and gets back on cancel: kept, not recomputed, since fees change.
  price               bigint NOT NULL,
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'activated', 'cancelled')),
  pricekod_id         integer REFERENCES pricekods(id),
  activated_by        integer REFERENCES users(id),
  activated_wallet_id integer REFERENCES wallets(id),
  activated_at        timestamptz,
  cancelled_by        integer REFERENCES users(id),
  cancelled_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CHECK (price = nominal + fee),
  CHECK ((status = 'activated') = (activated_at IS NOT NULL)),
  CHECK (status <> 'activated' OR (activated_by IS NOT NULL AND activated_wallet_id IS NOT NULL)),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
-- The issuer's open codes on a server (price data), and the batch's codes.
CREATE INDEX codes_issuer_open ON codes (user_id, gamesserver_id, id) WHERE status = 'active';
CREATE INDEX codes_issuer ON codes (user_id, id);
CREATE INDEX codes_pricekod ON codes (pricekod_id, id) WHERE pricekod_id IS NOT NULL;
-- The last code a user activated on a server (user_kod).
CREATE INDEX codes_activated_by ON codes (activated_by, gamesserver_id, activated_at) WHERE activated_by IS NOT NULL;
-- The ledger audit sums the active codes per server.
CREATE INDEX codes_active_server ON codes (gamesserver_id) WHERE status = 'active';

-- Every activation try that reached the database (rate-limited ones do not): the admin's
-- whole story of a code. sert_tried is kept only for unknown codes (code_id NULL).
CREATE TABLE code_attempts (
  id         bigserial PRIMARY KEY,
  code_id    integer REFERENCES codes(id),
  user_id    integer NOT NULL REFERENCES users(id),
  ip         text,
  result     text NOT NULL CHECK (result IN ('activated', 'already_activated', 'cancelled', 'own_code', 'not_found', 'server_closed')),
  sert_tried text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX code_attempts_code ON code_attempts (code_id, id) WHERE code_id IS NOT NULL;
CREATE INDEX code_attempts_user ON code_attempts (user_id, id);

-- Someone tried a code that was already activated or cancelled: its issuer is told (the usual
-- cause is one code sold to two buyers). One open incident per code and trying user, so a
-- buyer pressing the button five times makes one.
CREATE TABLE code_incidents (
  id              serial PRIMARY KEY,
  code_id         integer NOT NULL REFERENCES codes(id),
  user_id         integer NOT NULL REFERENCES users(id),
  gamesserver_id  integer NOT NULL REFERENCES gamesservers(id),
  attempted_by    integer NOT NULL REFERENCES users(id),
  attempt_ip      text,
  code_status     text NOT NULL CHECK (code_status IN ('activated', 'cancelled')),
  acknowledged_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX code_incidents_open_once ON code_incidents (code_id, attempted_by) WHERE acknowledged_at IS NULL;
CREATE INDEX code_incidents_owner ON code_incidents (user_id, id);
CREATE INDEX code_incidents_created ON code_incidents (id DESC);

-- A committed debit took the adena balance of a wallet below its telegram_price. Written in
-- the debit's own transaction (status 'pending'), so a crossing is recorded exactly once; the
-- message goes out after commit and the row then says how it went.
CREATE TABLE telegram_notices (
  id             bigserial PRIMARY KEY,
  user_id        integer NOT NULL REFERENCES users(id),
  wallet_id      integer NOT NULL REFERENCES wallets(id),
  gamesserver_id integer NOT NULL REFERENCES gamesservers(id),
  threshold      bigint NOT NULL,
  balance        bigint NOT NULL,
  chat_id        bigint,
  text           text NOT NULL,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'no_chat', 'no_bot')),
  error          text,
  sent_at        timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX telegram_notices_user ON telegram_notices (user_id, id);

-- One-time tokens of the bot's deep link (t.me/<bot>?start=<token>); only the SHA-256 is kept.
CREATE TABLE telegram_link_tokens (
  token_hash text PRIMARY KEY,
  user_id    integer NOT NULL REFERENCES users(id),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX telegram_link_tokens_user ON telegram_link_tokens (user_id);
