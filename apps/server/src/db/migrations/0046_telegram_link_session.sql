-- A Telegram link token (GET /api/telegram_link, the bot's t.me/<bot>?start=<token>) belongs to the session
-- that asked for it and dies with it, as realtime tokens and statement links do (0015): a thief who took the
-- link from a stolen session could still tie his chat to the owner's notices for up to an hour after the
-- owner ended that session (a revoke, «end the others», a password change, a logout). Consuming a token
-- needs its session (telegram-subscriptions.repository.ts); a row without one links nothing.
ALTER TABLE telegram_link_tokens ADD COLUMN session_id integer REFERENCES tokens(id) ON DELETE CASCADE;

CREATE INDEX telegram_link_tokens_session ON telegram_link_tokens (session_id) WHERE session_id IS NOT NULL;

-- Unused links asked for before this migration name no session: they go (each lived an hour; the player
-- asks for a new one in the same dialog). Used ones stay until the purge, for the answer to a /start that
-- Telegram delivers again.
DELETE FROM telegram_link_tokens WHERE used_at IS NULL;
