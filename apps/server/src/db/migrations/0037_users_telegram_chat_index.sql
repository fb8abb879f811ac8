-- Finding a user by their linked Telegram chat (`/stop`, a chat Telegram reports gone, the shift's
-- check that a chat is an operator's) read the whole users table: `/stop` is any Telegram user's to
-- send, and the bot's deliveries skip the per-address limits, so each such message cost a full scan.
CREATE INDEX users_telegram_chat ON users (telegram_chat_id) WHERE telegram_chat_id IS NOT NULL;
