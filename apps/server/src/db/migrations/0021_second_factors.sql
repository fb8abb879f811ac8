-- Second factors (PRODUCT.md section 7, decision record 0024): TOTP on the user row, recovery
-- codes, the pending sign-ins that wait for a code, passkeys and their WebAuthn challenges.

-- totp_secret is set while TOTP is on; totp_pending_secret between /2fa/setup and /2fa/enable;
-- totp_last_step is the RFC 6238 time step of the last code accepted, so a code works once.
ALTER TABLE users
  ADD COLUMN totp_secret text,
  ADD COLUMN totp_pending_secret text,
  ADD COLUMN totp_last_step bigint;

-- Ten per user while TOTP is on, stored as SHA-256; a used one keeps its row with used_at.
CREATE TABLE recovery_codes (
  id         serial PRIMARY KEY,
  user_id    integer NOT NULL REFERENCES users (id),
  code_hash  text NOT NULL UNIQUE,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recovery_codes_user ON recovery_codes (user_id);

-- A password (or Discord) sign-in of a user with TOTP on: the two_factor_token's hash, bound to
-- its user, alive 10 minutes, at most 5 codes tried.
CREATE TABLE two_factor_challenges (
  token_hash text PRIMARY KEY,
  user_id    integer NOT NULL REFERENCES users (id),
  attempts   integer NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 5),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX two_factor_challenges_expiry ON two_factor_challenges (expires_at);

CREATE TABLE passkeys (
  id            serial PRIMARY KEY,
  user_id       integer NOT NULL REFERENCES users (id),
  credential_id text NOT NULL UNIQUE,
  public_key    bytea NOT NULL,
  counter       bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
  transports    text[] NOT NULL DEFAULT '{}',
  name          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX passkeys_user ON passkeys (user_id);

-- WebAuthn challenges, in the database so any process may verify what another issued; taken
-- (deleted) by the verification that uses them, alive 5 minutes. user_id is set for a registration.
CREATE TABLE webauthn_challenges (
  challenge  text PRIMARY KEY,
  purpose    text NOT NULL CHECK (purpose IN ('register', 'login')),
  user_id    integer REFERENCES users (id),
  expires_at timestamptz NOT NULL,
  CHECK ((purpose = 'register') = (user_id IS NOT NULL))
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);
