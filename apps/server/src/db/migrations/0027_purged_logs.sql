-- Logs that grew without end, now purged by the job queue's purge (modules/jobs/purge.repository.ts):
-- each by age, and only its finished rows. These partial indexes let each purge read just the rows
-- it may delete instead of the whole table every ten minutes.
--   code_attempts: a guess that matched no code (code_id NULL) is read by nobody after the limits'
--     windows; tries of a real code stay, they are the operators' evidence in the code's card.
--   telegram_notices: a notice no longer pending has been sent, or never will be.
--   webhook_deliveries: a delivery no longer pending; the seller's log shows the last 50.
--   api_key_calls: the key calls' audit (already indexed by created_at in 0019_seller_api.sql).
CREATE INDEX code_attempts_guesses_created ON code_attempts (created_at) WHERE code_id IS NULL;
CREATE INDEX telegram_notices_done_created ON telegram_notices (created_at) WHERE status <> 'pending';
CREATE INDEX webhook_deliveries_done_created ON webhook_deliveries (created_at) WHERE status <> 'pending';
