-- Accounts and sessions: one-time code flows, Discord sign-in state, rate-limit counters.
-- Written for PostgreSQL 15 (Debian) and 18 (PGlite) alike.

-- A sign-up or password-reset flow. The client holds a random flow token; only its SHA-256 is
-- kept. code_hash is HMAC-SHA-256 of the 6-digit code keyed with that token, so a copy of this
-- table cannot be brute-forced back to live codes without the tokens it does not contain.
-- code_hash is NULL when no code was sent: sign-up of an address that already has an account
-- (it gets a "you already have an account" message) and reset of an unknown address. Such a
-- flow answers exactly like a real one and simply never accepts a code.
CREATE TABLE auth_flows (
  id            serial PRIMARY KEY,
  token_hash    text NOT NULL UNIQUE,
  purpose       text NOT NULL CHECK (purpose IN ('register', 'reset')),
  channel       text NOT NULL CHECK (channel IN ('email', 'sms')),
  -- Normalised: a lower-case email or an E.164 phone.
  address       text NOT NULL,
  -- Reset: the account being reset (NULL for an unknown address). Sign-up: NULL.
  user_id       integer REFERENCES users(id) ON DELETE CASCADE,
  code_hash     text,
  -- Sign-up: the argon2id hash of the chosen password and the optional name, kept until the
  -- code is verified; no users row exists before that.
  password_hash text,
  name          text,
  tries         integer NOT NULL DEFAULT 0 CHECK (tries >= 0),
  resends       integer NOT NULL DEFAULT 0 CHECK (resends >= 0),
  expires_at    timestamptz NOT NULL,
  last_sent_at  timestamptz NOT NULL,
  consumed_at   timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
-- The once-a-minute rule looks up the latest flow of an address.
CREATE INDEX auth_flows_address ON auth_flows (purpose, channel, address, last_sent_at);
CREATE INDEX auth_flows_expires ON auth_flows (expires_at);

-- Discord authorization-code flow: the state handed out in authorize_url, with the PKCE
-- verifier that belongs to it. One row per auth_config answer; consumed (deleted) on use.
CREATE TABLE oauth_states (
  state_hash    text PRIMARY KEY,
  provider      text NOT NULL CHECK (provider IN ('discord')),
  code_verifier text NOT NULL,
  redirect_uri  text NOT NULL,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_states_expires ON oauth_states (expires_at);

-- Fixed-window counters shared by every app process on one database (an in-memory limiter
-- would give each process its own allowance).
CREATE TABLE rate_limits (
  key          text PRIMARY KEY,
  hits         integer NOT NULL CHECK (hits >= 0),
  window_start timestamptz NOT NULL
);
-- Old windows are swept when new flows start.
CREATE INDEX rate_limits_window ON rate_limits (window_start);
