-- Keys the server makes for itself when no setting gives one (decision record 0020): today only
-- 'messages', the AES-256-GCM key that seals mail and SMS jobs while SECRET_KEY is unset. One row
-- per name, written once by whichever process comes first (INSERT … ON CONFLICT DO NOTHING).
CREATE TABLE secret_keys (
  name       text PRIMARY KEY,
  -- 32 random bytes, base64.
  key        text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
