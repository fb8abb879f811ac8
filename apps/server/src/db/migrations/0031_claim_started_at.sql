-- When the operator holding a request first took it (the shift report's median runs from here): the
-- claim's own time, claimed_at, moves with every renewal (the open queue renews its claims every
-- 4 minutes), so measured from it every decision looked quick. Earlier rows keep their claimed_at.
ALTER TABLE balance_requests ADD COLUMN claim_started_at timestamptz;
UPDATE balance_requests SET claim_started_at = claimed_at WHERE claimed_at IS NOT NULL;
