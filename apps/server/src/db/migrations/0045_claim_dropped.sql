-- The operator whose claim ended without a decision because they were blocked, lost the admin flag or had TOTP
-- turned off (shift.service.ts releaseAllOf). They may have handed the adena over in game already, so the
-- player's cancel stays refused, as under their claim, until an operator decides the request or releases it
-- by hand after taking it (an operator's judgement, not a side effect). NULL otherwise.
ALTER TABLE balance_requests ADD COLUMN claim_dropped_by integer REFERENCES users (id);
