-- Idempotency-Keys of money calls (decision record 0015). A key is claimed by an INSERT in the
-- call's own transaction, so a parallel retry with the same key waits on that row and, once the
-- first call commits, gets its stored answer instead of moving money again; a failed call rolls
-- its claim back and may be retried as new. idempotency_keys.response_body holds the answer as
-- jsonb: what the call answers again on a replay.

-- Claims the key for this call (method, path and body hashed): NULL when it was free and is now
-- this transaction's. A key that already holds an answer for the same call answers it; a key of
-- another call, or of one that has not finished, raises AWKEY (409).
CREATE OR REPLACE FUNCTION idempotency_claim(p_user integer, p_key text, p_method text, p_path text, p_hash text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  k idempotency_keys%ROWTYPE;
BEGIN
  INSERT INTO idempotency_keys (user_id, key, method, path, request_hash)
    VALUES (p_user, p_key, p_method, p_path, p_hash) ON CONFLICT (user_id, key) DO NOTHING;
  IF FOUND THEN
    RETURN NULL;
  END IF;
  SELECT * INTO STRICT k FROM idempotency_keys i WHERE i.user_id = p_user AND i.key = p_key;
  IF k.request_hash <> p_hash OR k.response_status IS DISTINCT FROM 200 OR k.response_body IS NULL THEN
    RAISE EXCEPTION 'KEY_REUSED' USING ERRCODE = 'AWKEY';
  END IF;
  RETURN k.response_body;
END $$;

-- Stores the answer under the key this transaction claimed, with the movement it describes.
-- PL/pgSQL, not SQL: an SQL function that cannot be inlined (an UPDATE) is planned again on every
-- call, which cost a keyed withdrawal's statement about 15 % of its throughput (decision record 0031);
-- PL/pgSQL keeps the UPDATE's plan for the session.
CREATE OR REPLACE FUNCTION idempotency_store(p_user integer, p_key text, p_answer jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE idempotency_keys SET response_status = 200, response_body = p_answer WHERE user_id = p_user AND key = p_key;
END $$;
