-- Issue 15 (abuse resistance), decision record 0019.
-- Discord's state is bound to the browser that asked for it: the SHA-256 of a random key that
-- browser holds in an HttpOnly cookie. Rows from before have none and are refused.
ALTER TABLE oauth_states ADD COLUMN browser_hash text;

-- Each signed Telegram sign-in (Login Widget result or mini app launch data, by its hash) signs in
-- once; kept until it would be too old anyway.
CREATE TABLE telegram_sign_ins (
  hash       text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX telegram_sign_ins_expires ON telegram_sign_ins (expires_at);
