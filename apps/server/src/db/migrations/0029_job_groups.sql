-- A job's group (decision record 0016, "Groups"): while a job of a group is running, no worker
-- claims another of the same group, so one seller's webhook deliveries (group 'webhook:<user>') take
-- at most one worker at a time and the others serve everyone else. The claim looks up, per due job
-- of a group, whether the group has a job running and which is its first live job: one index each.
ALTER TABLE jobs ADD COLUMN grp text;
CREATE INDEX jobs_group_running ON jobs (grp) WHERE state = 'running' AND grp IS NOT NULL;
CREATE INDEX jobs_group_live ON jobs (grp, id) WHERE state IN ('pending', 'running') AND grp IS NOT NULL;
