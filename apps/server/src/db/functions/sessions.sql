-- The bearer rule, in one place: a token of a kind finds its user when the token exists, has not
-- expired, and the user is not blocked. The server's own lookups (the request's signed-in user,
-- the realtime handshake) run `SELECT * FROM token_user($1, $2)`; money calls check the bearer
-- inside their own statement with caller_id.

-- When a token ends (decision record 0018): at its hard end (expires_at; an access token's is
-- SESSION_MAX_DAYS after sign-in) or idle_seconds after it was last seen (an access token's is
-- SESSION_IDLE_HOURS), whichever comes first; NULL when neither applies. token_user refuses a token
-- past it, and the sessions sweep ends (and tells the sockets of) every session past it.
-- STABLE, not IMMUTABLE, because timestamptz + interval is, so that PostgreSQL inlines it.
CREATE OR REPLACE FUNCTION token_ends_at(p_expires_at timestamptz, p_last_seen_at timestamptz, p_idle_seconds integer)
RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT LEAST(p_expires_at, p_last_seen_at + make_interval(secs => p_idle_seconds))
$$;

-- A plain SQL function, so PostgreSQL inlines it into the statement that calls it: one indexed
-- lookup of the token by its hash (tokens.token_hash is unique) and of its user by id.
CREATE OR REPLACE FUNCTION token_user(p_token_hash text, p_kind text) RETURNS SETOF users
LANGUAGE sql STABLE AS $$
  SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id
   WHERE t.token_hash = p_token_hash AND t.kind = p_kind
     AND (token_ends_at(t.expires_at, t.last_seen_at, t.idle_seconds) > now()
          OR token_ends_at(t.expires_at, t.last_seen_at, t.idle_seconds) IS NULL)
     AND u.blocked_at IS NULL
$$;

-- The caller of a money call, found inside the call's own statement (decision record 0014):
-- `request_open(caller_id($token_hash), …)` checks the bearer, opens the request and holds the
-- amount in one round trip. An access token token_user does not accept raises AW401, which the
-- server answers with 401, so nothing else of the statement runs for an unknown caller.
CREATE OR REPLACE FUNCTION caller_id(p_token_hash text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  uid integer;
BEGIN
  SELECT u.id INTO uid FROM token_user(p_token_hash, 'access') u;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'UNAUTHENTICATED' USING ERRCODE = 'AW401';
  END IF;
  RETURN uid;
END $$;

-- The bearer of a money call checked again once its statement has done its work (`SELECT … FROM
-- request_open(caller_id($1), …) r WHERE bearer_still_live($1, r.user_id)`): caller_id checks it
-- before the statement waits for the wallet's row (a movement holding it), and a block, a password
-- change or reset, a logout or a TOTP rescue may commit meanwhile. A withdrawal that waited so was
-- written after the owner's password change had ended the thief's session, and an operator could
-- pay it out (stress review, round 11). PL/pgSQL and VOLATILE, so that it is never inlined and its
-- query reads a snapshot of its own, taken after the waits (READ COMMITTED): an end committed by
-- then is seen (AW401, the whole statement rolls back); one that commits later is ordered after
-- this call, as if the call had come a moment earlier. No lock is taken: the users' rows stay free
-- of share locks (decision record 0014).
CREATE OR REPLACE FUNCTION bearer_still_live(p_token_hash text, p_uid integer) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM 1 FROM token_user(p_token_hash, 'access') u WHERE u.id = p_uid;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'UNAUTHENTICATED' USING ERRCODE = 'AW401';
  END IF;
  RETURN true;
END $$;

-- The caller of a withdrawal (PRODUCT.md section 7's step-up): caller_id, and when the user has
-- TOTP on and the server has not checked an X-Two-Factor-Code for this call, AW2FA (403 with
-- two_factor_required) before anything moves. Users without TOTP pay nothing for it: the same
-- inlined lookup reads one more column of the row it already reads.
CREATE OR REPLACE FUNCTION withdrawer_id(p_token_hash text, p_code_checked boolean) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  uid integer;
  has_totp boolean;
BEGIN
  SELECT u.id, u.totp_secret IS NOT NULL INTO uid, has_totp FROM token_user(p_token_hash, 'access') u;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'UNAUTHENTICATED' USING ERRCODE = 'AW401';
  END IF;
  IF has_totp AND NOT p_code_checked THEN
    RAISE EXCEPTION 'TWO_FACTOR_REQUIRED' USING ERRCODE = 'AW2FA';
  END IF;
  RETURN uid;
END $$;

-- A keyed withdrawal's caller: as withdrawer_id, but a retry whose Idempotency-Key already holds
-- this very call's answer (same request hash) passes without a code, since request_open_once will
-- only replay that answer (the first try's code is spent; the key is the caller's, the token is
-- still checked). The key's row is locked FOR SHARE, so the purge cannot remove it between this
-- check and the claim and turn the replay into a fresh withdrawal without a code.
CREATE OR REPLACE FUNCTION withdrawer_id(p_token_hash text, p_code_checked boolean, p_key text, p_hash text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  uid integer;
  has_totp boolean;
BEGIN
  SELECT u.id, u.totp_secret IS NOT NULL INTO uid, has_totp FROM token_user(p_token_hash, 'access') u;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'UNAUTHENTICATED' USING ERRCODE = 'AW401';
  END IF;
  IF has_totp AND NOT p_code_checked THEN
    PERFORM 1 FROM idempotency_keys k
     WHERE k.user_id = uid AND k.key = p_key AND k.request_hash = p_hash
       AND k.response_status = 200 AND k.response_body IS NOT NULL
       FOR SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'TWO_FACTOR_REQUIRED' USING ERRCODE = 'AW2FA';
    END IF;
  END IF;
  RETURN uid;
END $$;
