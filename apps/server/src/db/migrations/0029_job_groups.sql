-- A job's group (decision record 0016, "Groups"): while a job of a group is running, no worker
-- claims another of the same group, so one seller's webhook deliveries (group 'webhook:<user>') take
-- at most one worker at a time and the others serve everyone else.
ALTER TABLE jobs ADD COLUMN grp text;
CREATE INDEX jobs_group ON jobs (grp, id) WHERE grp IS NOT NULL;
