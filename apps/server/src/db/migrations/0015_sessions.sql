-- Sessions a player controls (PRODUCT.md section 7, decision record 0018). An access token is a
-- session: it ends SESSION_MAX_DAYS after sign-in (expires_at) and SESSION_IDLE_HOURS after it was
-- last seen (idle_seconds past last_seen_at); the rule is token_ends_at in db/functions/sessions.sql.
-- The profile lists sessions with how they were signed in, from where and on what.
ALTER TABLE tokens
  ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN idle_seconds integer CHECK (idle_seconds > 0),
  ADD COLUMN method text,
  ADD COLUMN ip text,
  ADD COLUMN user_agent text,
  -- A realtime token belongs to the session it was issued from, so its socket can be ended with it;
  -- ending the session deletes its unused realtime tokens too.
  ADD COLUMN session_id integer REFERENCES tokens(id) ON DELETE CASCADE;

CREATE INDEX tokens_session ON tokens (session_id) WHERE session_id IS NOT NULL;

-- Sessions signed in before this migration get the default ends (SESSION_IDLE_HOURS 24,
-- SESSION_MAX_DAYS 30); sessions signed in later carry the settings of the process that signed them in.
UPDATE tokens SET idle_seconds = 24 * 3600, expires_at = LEAST(expires_at, created_at + interval '30 days')
 WHERE kind = 'access';
