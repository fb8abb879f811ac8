-- A TOTP setup belongs to the session that started it (security review): POST /2fa/setup keeps its
-- pending secret on that session's access token, and POST /2fa/enable takes only the caller session's.
-- Before, one pending secret per user: a setup from another session (a stolen one) replaced the owner's,
-- and the owner's codes never turned TOTP on. A session's setup ends with the session (its row goes);
-- turning TOTP on clears every session's. users.totp_pending_secret is no longer written: setups begun
-- before this migration are started again.
ALTER TABLE tokens
  ADD COLUMN totp_pending_secret text,
  ADD CONSTRAINT tokens_totp_pending_secret_access CHECK (totp_pending_secret IS NULL OR kind = 'access');
UPDATE users SET totp_pending_secret = NULL WHERE totp_pending_secret IS NOT NULL;
