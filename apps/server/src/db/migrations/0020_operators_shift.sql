-- The operators' shift (PRODUCT.md section 12, decision record 0023): who took a request into work
-- and when, and which Telegram alerts about it were already handed to the job queue.
--
-- claimed_by/claimed_at stay on the row after the decision, so the shift report can measure the
-- time from claim to decision. Taking the request is the claimer's only activity on it before the
-- decision, so a claim older than CLAIM_TIMEOUT_MIN no longer stands. No foreign key: users are never deleted
-- (a trigger refuses it) and a key check would share-lock the operator's row (decision record 0014).
ALTER TABLE balance_requests
  ADD COLUMN claimed_by integer,
  ADD COLUMN claimed_at timestamptz,
  -- Set once, by the conditional UPDATE that enqueues the alert: one alert of each kind per request.
  ADD COLUMN vip_alerted_at timestamptz,
  ADD COLUMN overdue_alerted_at timestamptz,
  ADD CONSTRAINT balance_requests_claim_whole CHECK ((claimed_by IS NULL) = (claimed_at IS NULL));

-- The alert scan: pending requests not yet alerted as overdue, oldest first.
CREATE INDEX balance_requests_unalerted ON balance_requests (created_at) WHERE status = 'pending' AND overdue_alerted_at IS NULL;
-- The shift report: decisions in a period.
CREATE INDEX balance_requests_decided ON balance_requests (processed_at) WHERE processed_by IS NOT NULL;
