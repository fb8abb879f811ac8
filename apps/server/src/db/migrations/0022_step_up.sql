-- The step-up of reads that show gift codes (README "Second factors"): when the session last gave a
-- good X-Two-Factor-Code. GET /my_codes accepts a session that did so within the last 10 minutes,
-- so paging through the list does not ask for a new code on every page.
ALTER TABLE tokens ADD COLUMN stepped_up_at timestamptz;
