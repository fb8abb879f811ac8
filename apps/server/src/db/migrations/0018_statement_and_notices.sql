-- Issue 17, part A: the player's statement, its CSV download link, and the Telegram notice of an
-- operator's decision (decision record 0021).

-- 'download': a one-time token that lets a link (Telegram's downloadFile sends no header) fetch
-- the caller's statement as CSV; lives two minutes and is deleted by its use.
ALTER TABLE tokens DROP CONSTRAINT tokens_kind_check;
ALTER TABLE tokens ADD CONSTRAINT tokens_kind_check CHECK (kind IN ('access', 'new_password', 'realtime', 'download'));

-- The statement reads a user's wallet accounts: wallets (user_id) → their accounts → entries by
-- (account_id, id). The second step had no index.
CREATE INDEX ledger_accounts_wallet ON ledger_accounts (wallet_id) WHERE wallet_id IS NOT NULL;

-- Telegram notices are of two kinds now: a balance below the wallet's threshold, and an
-- operator's decision on a request (no threshold, no balance; the request it is about).
ALTER TABLE telegram_notices ADD COLUMN kind text NOT NULL DEFAULT 'balance_drop' CHECK (kind IN ('balance_drop', 'request_decision'));
ALTER TABLE telegram_notices ADD COLUMN request_id integer;
ALTER TABLE telegram_notices ALTER COLUMN threshold DROP NOT NULL;
ALTER TABLE telegram_notices ALTER COLUMN balance DROP NOT NULL;
ALTER TABLE telegram_notices ADD CHECK ((kind = 'balance_drop') = (threshold IS NOT NULL AND balance IS NOT NULL));
ALTER TABLE telegram_notices ADD CHECK ((kind = 'request_decision') = (request_id IS NOT NULL));
