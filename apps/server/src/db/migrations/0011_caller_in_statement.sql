-- The caller of a money call is found inside the call's own statement (decision record 0014):
-- `request_open(caller_id($token_hash), …)` checks the bearer, opens the request and holds the
-- amount in one round trip, instead of a separate token lookup before it. caller_id is the rule
-- of userByToken (plugins/auth.ts) for access tokens: the token exists, has not expired, and its
-- user is not blocked; otherwise it raises AW401, which the server answers with 401, so nothing
-- else of the statement runs for an unknown caller.
CREATE FUNCTION caller_id(p_token_hash text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  uid integer;
BEGIN
  SELECT u.id INTO uid FROM tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = p_token_hash AND t.kind = 'access'
      AND (t.expires_at IS NULL OR t.expires_at > now()) AND u.blocked_at IS NULL;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'UNAUTHENTICATED' USING ERRCODE = 'AW401';
  END IF;
  RETURN uid;
END $$;
