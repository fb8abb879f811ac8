-- Deposits and withdrawals opened in one statement, and the Telegram notice of a balance that
-- fell below the player's limit. Errors the player can cause are raised with SQLSTATEs of class
-- 'AW' that the server maps to its answers: AW404 game server not found or inactive, AW422 amount
-- outside the server's limits (DETAIL 'min,max'), AW423 no nick on the wallet, AW429 five deposits already pending, AW409 insufficient
-- balance (from ledger_post), AWKEY an Idempotency-Key reused for another call.

-- 1 000 000 → '1 000 000' with no-break spaces (a Telegram message never wraps inside a number), as the
-- Russian texts show amounts: the SQL twin of formatAmount(v, '\u00a0') in
-- packages/contract/src/messages/amount.ts, for the one text SQL writes (the notice below).
CREATE OR REPLACE FUNCTION grouped_amount(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(v::text, '(\d)(?=(\d{3})+$)', '\1' || chr(160), 'g')
$$;

-- The word 'адена' after an amount, by the Russian plural rule of its last two digits and the case the
-- sentence needs: 'gen' after ниже (1 адены, 5 аден), 'nom' after сейчас (1 адена, 2 адены, 5 аден).
-- The SQL twin of currencyWord(v, 1, case) in packages/contract/src/messages/amount.ts.
CREATE OR REPLACE FUNCTION adena_word(v bigint, grammatical_case text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN abs(v) % 10 = 1 AND abs(v) % 100 <> 11 THEN CASE grammatical_case WHEN 'gen' THEN 'адены' ELSE 'адена' END
    WHEN abs(v) % 10 BETWEEN 2 AND 4 AND abs(v) % 100 NOT BETWEEN 12 AND 14 THEN CASE grammatical_case WHEN 'gen' THEN 'аден' ELSE 'адены' END
    ELSE 'аден'
  END
$$;

-- Call in the transaction of a debit, after the posting, with the adena balance before and after
-- it. A crossing of the wallet's telegram_price (before ≥ limit > after) is recorded as a
-- Telegram notice (status 'no_chat' when the player has not linked the bot) in that same
-- transaction, so it exists exactly when the debit does; wallet rows are updated one posting at a
-- time, so of several parallel debits exactly one sees the crossing. Nothing is sent here: the
-- server delivers the returned row after COMMIT.
CREATE OR REPLACE FUNCTION balance_drop_notice(p_user integer, p_wallet integer, p_server integer, p_before bigint, p_after bigint)
RETURNS TABLE (id bigint, chat_id bigint, text text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  lim bigint;
  server_name text;
BEGIN
  IF p_after >= p_before THEN RETURN; END IF;
  SELECT w.telegram_price INTO lim FROM wallets w WHERE w.id = p_wallet;
  IF lim IS NULL OR NOT (p_before >= lim AND p_after < lim) THEN RETURN; END IF;
  SELECT g.name INTO server_name FROM gamesservers g WHERE g.id = p_server;
  RETURN QUERY
    INSERT INTO telegram_notices (user_id, wallet_id, gamesserver_id, threshold, balance, chat_id, status, text)
    SELECT p_user, p_wallet, p_server, lim, p_after, u.telegram_chat_id, CASE WHEN u.telegram_chat_id IS NULL THEN 'no_chat' ELSE 'pending' END,
      'Баланс на сервере ' || coalesce(server_name, p_server::text) || ' опустился ниже ' || grouped_amount(lim) || ' ' ||
      adena_word(lim, 'gen') || ': сейчас ' || grouped_amount(p_after) || ' ' || adena_word(p_after, 'nom') ||
      '. Пополните баланс, чтобы продолжать выдавать коды.'
    FROM (SELECT 1) one LEFT JOIN users u ON u.id = p_user
    RETURNING telegram_notices.id, telegram_notices.chat_id, telegram_notices.text;
END $$;

-- A player's deposit ('input') or withdrawal ('output') request on their wallet of one game
-- server, the wallet created on first use. A withdrawal holds its amount at once: wallet → the
-- server's payout account, in the same statement. Answers the request with the server's name,
-- the wallet's balances after it, the Telegram notice a withdrawal of adena may have recorded and
-- the player's vip_until (the operators' feed event is built from this row, decision record 0027).
CREATE OR REPLACE FUNCTION request_open(p_user integer, p_server integer, p_type text, p_currency smallint, p_amount bigint)
RETURNS TABLE (
  id integer, user_id integer, wallet_id integer, gamesserver_id integer, type text, currency_type smallint,
  amount bigint, status text, nick text, cashier_nick text, comment text, hidden_at timestamptz,
  processed_by integer, processed_at timestamptz, created_at timestamptz, updated_at timestamptz,
  gamesserver text, balance bigint, balance_second bigint, notice_id bigint, notice_chat_id bigint, notice_text text,
  vip_until timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  s gamesservers%ROWTYPE;
  w wallets%ROWTYPE;
  r balance_requests%ROWTYPE;
  lo bigint;
  hi bigint;
  lim bigint;
  vip timestamptz;
  nid bigint;
  nchat bigint;
  ntext text;
  active boolean;
BEGIN
  -- The server, its limits for this call, the player's wallet and vip_until in one read.
  SELECT g.active, g.name, g.cashier_nick, (g.limits -> p_type -> p_currency::text ->> 'min')::bigint,
         (g.limits -> p_type -> p_currency::text ->> 'max')::bigint, x.id, x.nick, x.balance, x.balance_second, u.vip_until
    INTO active, s.name, s.cashier_nick, lo, hi, w.id, w.nick, w.balance, w.balance_second, vip
    FROM gamesservers g
    LEFT JOIN wallets x ON x.user_id = p_user AND x.gamesserver_id = g.id
    LEFT JOIN users u ON u.id = p_user
   WHERE g.id = p_server;
  IF NOT FOUND OR NOT active THEN
    RAISE EXCEPTION 'SERVER_NOT_FOUND' USING ERRCODE = 'AW404';
  END IF;
  -- A currency or direction without limits in the server's settings takes nothing (DETAIL '0,0'):
  -- a comparison with NULL would let any amount through.
  IF lo IS NULL OR hi IS NULL OR p_amount < lo OR p_amount > hi THEN
    RAISE EXCEPTION 'LIMIT_EXCEEDED' USING ERRCODE = 'AW422',
      DETAIL = CASE WHEN lo IS NULL OR hi IS NULL THEN '0,0' ELSE lo || ',' || hi END;
  END IF;

  IF w.id IS NULL THEN
    INSERT INTO wallets (user_id, gamesserver_id) VALUES (p_user, p_server) ON CONFLICT (user_id, gamesserver_id) DO NOTHING;
    SELECT * INTO STRICT w FROM wallets x WHERE x.user_id = p_user AND x.gamesserver_id = p_server;
  END IF;
  IF coalesce(w.nick, '') = '' THEN
    RAISE EXCEPTION 'NICK_REQUIRED' USING ERRCODE = 'AW423';
  END IF;
  -- At most 5 pending deposits per wallet (PRODUCT.md section 8): the wallet row is locked first,
  -- so parallel deposits count one after another and a sixth never slips in beside the fifth. The
  -- balances are read again under the lock: the `balance` event sent after COMMIT (so the player's
  -- other devices list the new deposit) carries no figure older than a change committed before it.
  IF p_type = 'input' THEN
    SELECT x.balance, x.balance_second INTO w.balance, w.balance_second FROM wallets x WHERE x.id = w.id FOR UPDATE;
    IF (SELECT count(*) FROM balance_requests b WHERE b.user_id = p_user AND b.gamesserver_id = p_server
          AND b.type = 'input' AND b.status = 'pending') >= 5 THEN
      RAISE EXCEPTION 'TOO_MANY_PENDING' USING ERRCODE = 'AW429';
    END IF;
  END IF;

  INSERT INTO balance_requests (user_id, wallet_id, gamesserver_id, type, currency_type, amount, nick, cashier_nick)
    VALUES (p_user, w.id, p_server, p_type, p_currency, p_amount, w.nick, s.cashier_nick)
    RETURNING * INTO r;

  IF p_type = 'output' THEN
    SELECT l.balance, l.balance_second, l.telegram_price INTO w.balance, w.balance_second, lim FROM ledger_post('withdrawal_hold', 'balance_request', r.id, p_user,
      ARRAY['wallet', 'payout'], ARRAY[p_server, p_server], ARRAY[p_currency, p_currency],
      ARRAY[w.id, NULL], ARRAY[-p_amount, p_amount]) l;
    -- The posting answers the wallet's limit as of its locked row: the notice's function (which
    -- checks the crossing again) is called only when this debit crossed it.
    IF p_currency = 1 AND w.balance + p_amount >= lim AND w.balance < lim THEN
      SELECT d.id, d.chat_id, d.text INTO nid, nchat, ntext FROM balance_drop_notice(p_user, w.id, p_server, w.balance + p_amount, w.balance) d;
    END IF;
  END IF;

  RETURN QUERY SELECT r.id, r.user_id, r.wallet_id, r.gamesserver_id, r.type, r.currency_type, r.amount, r.status,
    r.nick, r.cashier_nick, r.comment, r.hidden_at, r.processed_by, r.processed_at, r.created_at, r.updated_at,
    s.name, w.balance, w.balance_second, nid, nchat, ntext, vip;
END $$;

-- request_open with an Idempotency-Key, in one statement: the key is claimed (a parallel call
-- with the same key waits on its row), the request opened, and its row stored as the key's
-- answer, all in one transaction; a failure rolls the claim back with everything else. A key that
-- already holds an answer for the same call answers that row again with `replayed` set and moves
-- nothing; for another call idempotency_claim raises AWKEY (409). The type opened_request is
-- defined in migration 0025_withdrawal_path.sql (request_open's columns, then `replayed`).
CREATE OR REPLACE FUNCTION request_open_once(
  p_user integer, p_key text, p_method text, p_path text, p_hash text,
  p_server integer, p_type text, p_currency smallint, p_amount bigint
) RETURNS SETOF opened_request
LANGUAGE plpgsql AS $$
DECLARE
  answer jsonb;
  o opened_request;
BEGIN
  answer := idempotency_claim(p_user, p_key, p_method, p_path, p_hash);
  IF answer IS NOT NULL THEN
    o := jsonb_populate_record(NULL::opened_request, answer);
    o.replayed := true;
    RETURN NEXT o;
    RETURN;
  END IF;
  SELECT r.*, false INTO o FROM request_open(p_user, p_server, p_type, p_currency, p_amount) r;
  PERFORM idempotency_store(p_user, p_key, to_jsonb(o));
  RETURN NEXT o;
END $$;
