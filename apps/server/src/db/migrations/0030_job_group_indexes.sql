-- The claim looks up, for each due job of a group, whether the group has a job running and which is
-- its first live job (decision record 0016, "Groups"): one partial index each, in place of 0029's
-- index over every grouped row.
DROP INDEX IF EXISTS jobs_group;
CREATE INDEX IF NOT EXISTS jobs_group_running ON jobs (grp) WHERE state = 'running' AND grp IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_group_live ON jobs (grp, id) WHERE state IN ('pending', 'running') AND grp IS NOT NULL;
