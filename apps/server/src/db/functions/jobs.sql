-- A group's jobs run one at a time (decision record 0016, "Groups"). The claim (jobs.repository.ts)
-- picks a group's job only when its own snapshot shows none of the group running under a live lease
-- and the job as the group's first due one; then, for the job it chose, it asks this function, which
-- takes the group's advisory lock for the rest of the claim's transaction (another worker's claim of
-- the group is refused meanwhile instead of waiting) and asks both again in a snapshot taken after it.
-- The claim's snapshot alone was not enough: job ids are drawn at INSERT and events are enqueued in
-- longer transactions, so a lower job of the group could commit after another worker had claimed a
-- higher one, and a worker whose snapshot did not yet show that claim took the lower one as well: two
-- deliveries of one seller at once, out of order. VOLATILE PL/pgSQL, so its query reads what had
-- committed when it ran (READ COMMITTED), not the claim's snapshot. 7303 is the job groups' space of
-- two-key advisory locks (7301: an address's code flows, accounts.repository.ts; 7302: a user's API
-- keys, api-keys.repository.ts).
CREATE OR REPLACE FUNCTION job_group_turn(p_grp text, p_id bigint, p_now timestamptz) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(7303, hashtext(p_grp)) THEN
    RETURN false;
  END IF;
  RETURN NOT EXISTS (SELECT FROM jobs r WHERE r.grp = p_grp AND r.state = 'running' AND r.run_at > p_now)
     AND p_id = (SELECT min(h.id) FROM jobs h WHERE h.grp = p_grp AND h.state IN ('pending', 'running') AND h.run_at <= p_now);
END
$$;
