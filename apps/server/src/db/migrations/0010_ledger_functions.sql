-- Money movements in one round trip (decision record 0012). The rules stay those of 0002 and
-- 0004; what changes is where they run: a posting (ledger_post) and the opening of a deposit or
-- withdrawal (request_open) are single statements, so the database does the work of what used
-- to be five to fifteen statements from the server, each with its own round trip. Errors the
-- player can cause are raised with SQLSTATEs of class 'AW' that the server maps to its answers:
--   AW404 game server not found or inactive, AW422 amount outside the server's limits (DETAIL
--   'min,max'), AW423 no nick on the wallet, AW409 insufficient balance (DETAIL the account key).

-- 1 000 000 → '1 000 000', as the Russian texts show amounts.
CREATE FUNCTION grouped_amount(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(v::text, '(\d)(?=(\d{3})+$)', '\1 ', 'g')
$$;

-- One balanced movement of value. Legs come as parallel arrays (account key, kind, game server,
-- currency, wallet or NULL, amount), wallet legs first in ascending wallet id, so every posting
-- locks wallets in the same order and two postings never wait on each other in a cycle. A wallet
-- leg is a guarded UPDATE of the cached balance that refuses to go below zero (AW409, before the
-- CHECK would); the service's accounts keep no running balance. Answers one row per touched
-- wallet with its balances after the posting (or one row with NULL wallet when none was touched).
CREATE FUNCTION ledger_post(
  p_kind text, p_ref_type text, p_ref_id bigint, p_actor integer,
  p_keys text[], p_kinds text[], p_servers integer[], p_currencies smallint[], p_wallets integer[], p_amounts bigint[]
) RETURNS TABLE (transaction_id bigint, wallet_id integer, gamesserver_id integer, balance bigint, balance_second bigint, telegram_price bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  n integer := coalesce(array_length(p_keys, 1), 0);
  accounts integer[] := '{}';
  afters bigint[] := '{}';
  acc integer;
  after bigint;
  tx bigint;
BEGIN
  IF n < 2 OR (SELECT sum(a) FROM unnest(p_amounts) a) <> 0 THEN
    RAISE EXCEPTION 'ledger posting % does not balance', p_kind USING ERRCODE = '23514';
  END IF;
  FOR i IN 1 .. n LOOP
    SELECT a.id INTO acc FROM ledger_accounts a WHERE a.key = p_keys[i];
    IF NOT FOUND THEN
      -- DO NOTHING, not DO UPDATE: an upsert would lock the hot per-server rows on every posting.
      INSERT INTO ledger_accounts (key, kind, gamesserver_id, currency_type, wallet_id)
        VALUES (p_keys[i], p_kinds[i], p_servers[i], p_currencies[i], p_wallets[i])
        ON CONFLICT (key) DO NOTHING RETURNING id INTO acc;
      IF acc IS NULL THEN
        SELECT a.id INTO STRICT acc FROM ledger_accounts a WHERE a.key = p_keys[i];
      END IF;
    END IF;
    accounts[i] := acc;
    after := NULL;
    IF p_kinds[i] = 'wallet' THEN
      IF p_currencies[i] = 1 THEN
        UPDATE wallets w SET balance = w.balance + p_amounts[i]
          WHERE w.id = p_wallets[i] AND w.balance + p_amounts[i] >= 0 RETURNING w.balance INTO after;
      ELSE
        UPDATE wallets w SET balance_second = w.balance_second + p_amounts[i]
          WHERE w.id = p_wallets[i] AND w.balance_second + p_amounts[i] >= 0 RETURNING w.balance_second INTO after;
      END IF;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'INSUFFICIENT_BALANCE' USING ERRCODE = 'AW409', DETAIL = p_keys[i];
      END IF;
    END IF;
    afters[i] := after;
  END LOOP;

  INSERT INTO ledger_transactions (kind, ref_type, ref_id, actor_user_id)
    VALUES (p_kind, p_ref_type, p_ref_id, p_actor) RETURNING id INTO tx;
  INSERT INTO ledger_entries (transaction_id, account_id, amount, balance_after)
    SELECT tx, t.a, t.m, t.b FROM unnest(accounts, p_amounts, afters) AS t(a, m, b);

  RETURN QUERY SELECT tx, w.id, w.gamesserver_id, w.balance, w.balance_second, w.telegram_price
    FROM wallets w WHERE w.id = ANY (p_wallets) ORDER BY w.id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT tx, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint, NULL::bigint;
  END IF;
END $$;

-- Call in the transaction of a debit, after the posting, with the adena balance before and after
-- it. A crossing of the wallet's telegram_price (before ≥ limit > after) is recorded as a
-- Telegram notice (status 'no_chat' when the player has not linked the bot) in that same transaction, so it exists exactly when the debit does; wallet rows
-- are updated one posting at a time, so of several parallel debits exactly one sees the crossing.
-- Nothing is sent here: the server delivers the returned row after COMMIT.
CREATE FUNCTION balance_drop_notice(p_user integer, p_wallet integer, p_server integer, p_before bigint, p_after bigint)
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
      'Баланс на сервере ' || coalesce(server_name, p_server::text) || ' опустился ниже ' || grouped_amount(lim) ||
      ' аден: сейчас ' || grouped_amount(p_after) || ' аден. Пополните баланс, чтобы продолжать выдавать коды.'
    FROM (SELECT 1) one LEFT JOIN users u ON u.id = p_user
    RETURNING telegram_notices.id, telegram_notices.chat_id, telegram_notices.text;
END $$;

-- A player's deposit ('input') or withdrawal ('output') request on their wallet of one game
-- server, the wallet created on first use. A withdrawal holds its amount at once: wallet → the
-- server's payout account, in the same statement. Answers the request with the server's name,
-- the wallet's balances after it and the Telegram notice a withdrawal of adena may have recorded.
CREATE FUNCTION request_open(p_user integer, p_server integer, p_type text, p_currency smallint, p_amount bigint)
RETURNS TABLE (
  id integer, user_id integer, wallet_id integer, gamesserver_id integer, type text, currency_type smallint,
  amount bigint, status text, nick text, cashier_nick text, comment text, hidden_at timestamptz,
  processed_by integer, processed_at timestamptz, created_at timestamptz, updated_at timestamptz,
  gamesserver text, balance bigint, balance_second bigint, notice_id bigint, notice_chat_id bigint, notice_text text
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  s gamesservers%ROWTYPE;
  w wallets%ROWTYPE;
  r balance_requests%ROWTYPE;
  lo bigint;
  hi bigint;
  nid bigint;
  nchat bigint;
  ntext text;
BEGIN
  SELECT * INTO s FROM gamesservers g WHERE g.id = p_server;
  IF NOT FOUND OR NOT s.active THEN
    RAISE EXCEPTION 'SERVER_NOT_FOUND' USING ERRCODE = 'AW404';
  END IF;
  lo := (s.limits -> p_type -> p_currency::text ->> 'min')::bigint;
  hi := (s.limits -> p_type -> p_currency::text ->> 'max')::bigint;
  IF p_amount < lo OR p_amount > hi THEN
    RAISE EXCEPTION 'LIMIT_EXCEEDED' USING ERRCODE = 'AW422', DETAIL = lo || ',' || hi;
  END IF;

  SELECT * INTO w FROM wallets x WHERE x.user_id = p_user AND x.gamesserver_id = p_server;
  IF NOT FOUND THEN
    INSERT INTO wallets (user_id, gamesserver_id) VALUES (p_user, p_server) ON CONFLICT (user_id, gamesserver_id) DO NOTHING;
    SELECT * INTO STRICT w FROM wallets x WHERE x.user_id = p_user AND x.gamesserver_id = p_server;
  END IF;
  IF coalesce(w.nick, '') = '' THEN
    RAISE EXCEPTION 'NICK_REQUIRED' USING ERRCODE = 'AW423';
  END IF;

  INSERT INTO balance_requests (user_id, wallet_id, gamesserver_id, type, currency_type, amount, nick, cashier_nick)
    VALUES (p_user, w.id, p_server, p_type, p_currency, p_amount, w.nick, s.cashier_nick)
    RETURNING * INTO r;

  IF p_type = 'output' THEN
    SELECT l.balance, l.balance_second INTO w.balance, w.balance_second FROM ledger_post('withdrawal_hold', 'balance_request', r.id, p_user,
      ARRAY['wallet:' || w.id || ':' || p_currency, 'payout:' || p_server || ':' || p_currency],
      ARRAY['wallet', 'payout'], ARRAY[p_server, p_server], ARRAY[p_currency, p_currency],
      ARRAY[w.id, NULL], ARRAY[-p_amount, p_amount]) l;
    IF p_currency = 1 THEN
      SELECT d.id, d.chat_id, d.text INTO nid, nchat, ntext FROM balance_drop_notice(p_user, w.id, p_server, w.balance + p_amount, w.balance) d;
    END IF;
  END IF;

  RETURN QUERY SELECT r.id, r.user_id, r.wallet_id, r.gamesserver_id, r.type, r.currency_type, r.amount, r.status,
    r.nick, r.cashier_nick, r.comment, r.hidden_at, r.processed_by, r.processed_at, r.created_at, r.updated_at,
    s.name, w.balance, w.balance_second, nid, nchat, ntext;
END $$;
