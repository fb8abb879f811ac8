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

-- What request_open answers, and whether it is the stored answer of an earlier call with the
-- same Idempotency-Key (the columns of request_open's table, then `replayed`).
CREATE TYPE opened_request AS (
  id integer, user_id integer, wallet_id integer, gamesserver_id integer, type text, currency_type smallint,
  amount bigint, status text, nick text, cashier_nick text, comment text, hidden_at timestamptz,
  processed_by integer, processed_at timestamptz, created_at timestamptz, updated_at timestamptz,
  gamesserver text, balance bigint, balance_second bigint, notice_id bigint, notice_chat_id bigint, notice_text text,
  replayed boolean
);

-- request_open with an Idempotency-Key, in one statement: the key is claimed by an INSERT (a
-- parallel call with the same key waits on that row), the request opened, and its row stored as
-- the key's answer, all in one transaction; a failure rolls the claim back with everything else.
-- A key that already holds an answer for the same call (method, path and body hashed) answers
-- that row again with `replayed` set and moves nothing; for another call it raises AWKEY (409).
-- Keys of other calls keep the answer JSON of lib/idempotency.ts: the hash keeps them apart.
CREATE FUNCTION request_open_once(
  p_user integer, p_key text, p_method text, p_path text, p_hash text,
  p_server integer, p_type text, p_currency smallint, p_amount bigint
) RETURNS SETOF opened_request
LANGUAGE plpgsql AS $$
DECLARE
  k idempotency_keys%ROWTYPE;
  o opened_request;
BEGIN
  INSERT INTO idempotency_keys (user_id, key, method, path, request_hash)
    VALUES (p_user, p_key, p_method, p_path, p_hash) ON CONFLICT (user_id, key) DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO STRICT k FROM idempotency_keys i WHERE i.user_id = p_user AND i.key = p_key;
    IF k.request_hash <> p_hash OR k.response_status IS DISTINCT FROM 200 OR k.response_body IS NULL THEN
      RAISE EXCEPTION 'KEY_REUSED' USING ERRCODE = 'AWKEY';
    END IF;
    o := jsonb_populate_record(NULL::opened_request, k.response_body::jsonb);
    o.replayed := true;
    RETURN NEXT o;
    RETURN;
  END IF;
  SELECT r.*, false INTO o FROM request_open(p_user, p_server, p_type, p_currency, p_amount) r;
  UPDATE idempotency_keys i SET response_status = 200, response_body = to_jsonb(o)::text
    WHERE i.user_id = p_user AND i.key = p_key;
  RETURN NEXT o;
END $$;
