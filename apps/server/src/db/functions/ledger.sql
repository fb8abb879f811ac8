-- The ledger's functions: the only code that changes a balance (decision record 0012). Errors the
-- player can cause are raised with SQLSTATEs of class 'AW' that the server maps to its answers
-- (modules/ledger/ledger.service.ts): AW409 insufficient balance (DETAIL the account key), AW413 a
-- balance that would pass 9 007 199 254 740 991, the largest amount the API carries (DETAIL the
-- account key).

-- The signature of 0010_ledger_functions.sql took account keys from its callers; it is dropped so
-- that a key is spelled only by ledger_account_key below.
DROP FUNCTION IF EXISTS ledger_post(text, text, bigint, integer, text[], text[], integer[], smallint[], integer[], bigint[]);

-- The one place an account's key is spelled: a wallet's account per wallet and currency, the
-- service's accounts (cash, payout, escrow, fees) per game server and currency. A plain SQL
-- expression, so PostgreSQL inlines it into the statements that use it.
CREATE OR REPLACE FUNCTION ledger_account_key(p_kind text, p_server integer, p_currency smallint, p_wallet integer)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_kind = 'wallet' THEN 'wallet:' || p_wallet::text || ':' || p_currency::text
              ELSE p_kind || ':' || p_server::text || ':' || p_currency::text END
$$;

-- One balanced movement of value. Legs come as parallel arrays (account kind, game server,
-- currency, wallet or NULL, amount) in any order; legs on one account are summed and legs that
-- sum to nothing dropped. The legs are then taken wallet legs first in ascending wallet id, so
-- every posting locks wallets in the same order and two postings never wait on each other in a
-- cycle; the service's accounts keep no running balance and are never locked.
--
-- Everything that does not need a new balance happens before the first wallet is updated, as a
-- wallet's row stays locked from its UPDATE to COMMIT and parallel postings on one wallet queue on
-- it: the transaction row is written and every account found or created first. A wallet leg is a
-- guarded UPDATE of the cached balance that refuses to go below zero (AW409, before the CHECK
-- would) or a credit that would take it above the API's largest amount (AW413; refunds too, so no
-- answer ever carries a balance a client cannot read). Answers one row per touched wallet with its
-- balances after the posting (or one row with NULL wallet when none was touched).
CREATE OR REPLACE FUNCTION ledger_post(
  p_kind text, p_ref_type text, p_ref_id bigint, p_actor integer,
  p_kinds text[], p_servers integer[], p_currencies smallint[], p_wallets integer[], p_amounts bigint[]
) RETURNS TABLE (transaction_id bigint, wallet_id integer, gamesserver_id integer, balance bigint, balance_second bigint, telegram_price bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  l_keys text[] := '{}';
  l_kinds text[] := '{}';
  l_servers integer[] := '{}';
  l_currencies smallint[] := '{}';
  l_wallets integer[] := '{}';
  l_amounts bigint[] := '{}';
  n integer := 0;
  k text;
  j integer;
  accounts integer[] := '{}';
  afters bigint[] := '{}';
  acc integer;
  after bigint;
  total bigint := 0;
  tx bigint;
  wl integer;
  sl integer;
  wkey text;
  skey text;
  wacc integer;
  sacc integer;
BEGIN
  -- The common posting, one wallet against one of the service's accounts (every withdrawal,
  -- deposit and code): nothing to merge or order, so the same rows as the general path below in
  -- three statements instead of six. The transaction row is written and both accounts found by
  -- one; the guarded UPDATE of the wallet and both entries (wallet leg first, balance_after from
  -- the locked row) are the other, which answers the wallet's row; no entry is written when the
  -- UPDATE refused, and AW409 rolls the transaction row back with everything else. A posting whose
  -- accounts do not exist yet goes on to the general path with its transaction row, which
  -- creates them.
  IF array_length(p_kinds, 1) = 2 AND (p_kinds[1] = 'wallet') <> (p_kinds[2] = 'wallet')
     AND p_amounts[1] = -p_amounts[2] AND p_amounts[1] <> 0
     AND p_servers[1] = p_servers[2] AND p_currencies[1] = p_currencies[2] THEN
    wl := CASE WHEN p_kinds[1] = 'wallet' THEN 1 ELSE 2 END;
    sl := 3 - wl;
    wkey := ledger_account_key('wallet', p_servers[wl], p_currencies[wl], p_wallets[wl]);
    skey := ledger_account_key(p_kinds[sl], p_servers[sl], p_currencies[sl], p_wallets[sl]);
    WITH t AS (
      INSERT INTO ledger_transactions (kind, ref_type, ref_id, actor_user_id)
        VALUES (p_kind, p_ref_type, p_ref_id, p_actor) RETURNING id
    )
    SELECT t.id, (SELECT a.id FROM ledger_accounts a WHERE a.key = wkey), (SELECT a.id FROM ledger_accounts a WHERE a.key = skey)
      INTO tx, wacc, sacc FROM t;
    IF wacc IS NOT NULL AND sacc IS NOT NULL THEN
      -- One statement per currency, alike but for the column: a column chosen by CASE in one
      -- statement would make each UPDATE write (and re-check) both balances.
      IF p_currencies[wl] = 1 THEN
        WITH w AS (
          UPDATE wallets w SET balance = w.balance + p_amounts[wl]
           WHERE w.id = p_wallets[wl] AND w.gamesserver_id = p_servers[wl] AND w.balance + p_amounts[wl] >= 0 AND (p_amounts[wl] < 0 OR w.balance + p_amounts[wl] <= 9007199254740991)
           RETURNING w.id, w.gamesserver_id, w.balance, w.balance_second, w.telegram_price
        ), e AS (
          INSERT INTO ledger_entries (transaction_id, account_id, amount, balance_after)
            SELECT tx, wacc, p_amounts[wl], w.balance FROM w UNION ALL SELECT tx, sacc, p_amounts[sl], NULL FROM w
        )
        SELECT w.id, w.gamesserver_id, w.balance, w.balance_second, w.telegram_price
          INTO wallet_id, gamesserver_id, balance, balance_second, telegram_price FROM w;
      ELSE
        WITH w AS (
          UPDATE wallets w SET balance_second = w.balance_second + p_amounts[wl]
           WHERE w.id = p_wallets[wl] AND w.gamesserver_id = p_servers[wl] AND w.balance_second + p_amounts[wl] >= 0 AND (p_amounts[wl] < 0 OR w.balance_second + p_amounts[wl] <= 9007199254740991)
           RETURNING w.id, w.gamesserver_id, w.balance, w.balance_second, w.telegram_price
        ), e AS (
          INSERT INTO ledger_entries (transaction_id, account_id, amount, balance_after)
            SELECT tx, wacc, p_amounts[wl], w.balance_second FROM w UNION ALL SELECT tx, sacc, p_amounts[sl], NULL FROM w
        )
        SELECT w.id, w.gamesserver_id, w.balance, w.balance_second, w.telegram_price
          INTO wallet_id, gamesserver_id, balance, balance_second, telegram_price FROM w;
      END IF;
      -- The wallet's own server, not the one the caller named: the per-server balance below (and the audit's)
      -- holds only if a wallet leg is on its wallet's server.
      IF NOT FOUND AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.id = p_wallets[wl] AND w.gamesserver_id = p_servers[wl]) THEN
        RAISE EXCEPTION 'ledger posting % names another game server for wallet %', p_kind, p_wallets[wl] USING ERRCODE = '23514';
      ELSIF NOT FOUND AND p_amounts[wl] > 0 THEN
        RAISE EXCEPTION 'BALANCE_LIMIT' USING ERRCODE = 'AW413', DETAIL = wkey;
      ELSIF NOT FOUND THEN
        RAISE EXCEPTION 'INSUFFICIENT_BALANCE' USING ERRCODE = 'AW409', DETAIL = wkey;
      END IF;
      transaction_id := tx;
      RETURN NEXT;
      RETURN;
    END IF;
  END IF;

  -- Few legs: merged and ordered here by insertion, which costs far less than a sorting query.
  FOR i IN 1 .. coalesce(array_length(p_kinds, 1), 0) LOOP
    total := total + p_amounts[i];
    k := ledger_account_key(p_kinds[i], p_servers[i], p_currencies[i], p_wallets[i]);
    j := array_position(l_keys, k);
    IF j IS NOT NULL THEN
      l_amounts[j] := l_amounts[j] + p_amounts[i];
      CONTINUE;
    END IF;
    n := n + 1;
    j := n;
    WHILE j > 1 AND ((l_kinds[j - 1] <> 'wallet', l_wallets[j - 1], l_currencies[j - 1]) > (p_kinds[i] <> 'wallet', p_wallets[i], p_currencies[i])) IS TRUE LOOP
      l_keys[j] := l_keys[j - 1]; l_kinds[j] := l_kinds[j - 1]; l_servers[j] := l_servers[j - 1];
      l_currencies[j] := l_currencies[j - 1]; l_wallets[j] := l_wallets[j - 1]; l_amounts[j] := l_amounts[j - 1];
      j := j - 1;
    END LOOP;
    l_keys[j] := k; l_kinds[j] := p_kinds[i]; l_servers[j] := p_servers[i];
    l_currencies[j] := p_currencies[i]; l_wallets[j] := p_wallets[i]; l_amounts[j] := p_amounts[i];
  END LOOP;
  IF 0 = ANY (l_amounts) THEN
    SELECT array_agg(t.k ORDER BY t.o), array_agg(t.d ORDER BY t.o), array_agg(t.s ORDER BY t.o), array_agg(t.c ORDER BY t.o),
           array_agg(t.w ORDER BY t.o), array_agg(t.m ORDER BY t.o), count(*)
      INTO l_keys, l_kinds, l_servers, l_currencies, l_wallets, l_amounts, n
      FROM unnest(l_keys, l_kinds, l_servers, l_currencies, l_wallets, l_amounts) WITH ORDINALITY AS t(k, d, s, c, w, m, o)
     WHERE t.m <> 0;
  END IF;
  -- Value stays on its game server and in its currency: the legs balance per server and currency,
  -- not only in all (adena on one server against coins or another server's cash would pass that).
  IF n < 2 OR total <> 0 OR EXISTS (
    SELECT 1 FROM unnest(l_servers, l_currencies, l_amounts) AS t(s, c, m) GROUP BY t.s, t.c HAVING sum(t.m) <> 0
  ) THEN
    RAISE EXCEPTION 'ledger posting % does not balance', p_kind USING ERRCODE = '23514';
  END IF;
  IF tx IS NULL THEN
    INSERT INTO ledger_transactions (kind, ref_type, ref_id, actor_user_id)
      VALUES (p_kind, p_ref_type, p_ref_id, p_actor) RETURNING id INTO tx;
  END IF;
  FOR i IN 1 .. n LOOP
    SELECT a.id INTO acc FROM ledger_accounts a WHERE a.key = l_keys[i];
    IF NOT FOUND THEN
      -- DO NOTHING, not DO UPDATE: an upsert would lock the hot per-server rows on every posting.
      INSERT INTO ledger_accounts (key, kind, gamesserver_id, currency_type, wallet_id)
        VALUES (l_keys[i], l_kinds[i], l_servers[i], l_currencies[i], l_wallets[i])
        ON CONFLICT (key) DO NOTHING RETURNING id INTO acc;
      IF acc IS NULL THEN
        SELECT a.id INTO STRICT acc FROM ledger_accounts a WHERE a.key = l_keys[i];
      END IF;
    END IF;
    accounts[i] := acc;
  END LOOP;
  FOR i IN 1 .. n LOOP
    after := NULL;
    IF l_kinds[i] = 'wallet' THEN
      IF l_currencies[i] = 1 THEN
        UPDATE wallets w SET balance = w.balance + l_amounts[i]
          WHERE w.id = l_wallets[i] AND w.gamesserver_id = l_servers[i] AND w.balance + l_amounts[i] >= 0 AND (l_amounts[i] < 0 OR w.balance + l_amounts[i] <= 9007199254740991) RETURNING w.balance INTO after;
      ELSE
        UPDATE wallets w SET balance_second = w.balance_second + l_amounts[i]
          WHERE w.id = l_wallets[i] AND w.gamesserver_id = l_servers[i] AND w.balance_second + l_amounts[i] >= 0 AND (l_amounts[i] < 0 OR w.balance_second + l_amounts[i] <= 9007199254740991) RETURNING w.balance_second INTO after;
      END IF;
      IF NOT FOUND AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.id = l_wallets[i] AND w.gamesserver_id = l_servers[i]) THEN
        RAISE EXCEPTION 'ledger posting % names another game server for wallet %', p_kind, l_wallets[i] USING ERRCODE = '23514';
      ELSIF NOT FOUND AND l_amounts[i] > 0 THEN
        RAISE EXCEPTION 'BALANCE_LIMIT' USING ERRCODE = 'AW413', DETAIL = l_keys[i];
      ELSIF NOT FOUND THEN
        RAISE EXCEPTION 'INSUFFICIENT_BALANCE' USING ERRCODE = 'AW409', DETAIL = l_keys[i];
      END IF;
    END IF;
    afters[i] := after;
  END LOOP;

  INSERT INTO ledger_entries (transaction_id, account_id, amount, balance_after)
    SELECT tx, t.a, t.m, t.b FROM unnest(accounts, l_amounts, afters) AS t(a, m, b);

  RETURN QUERY SELECT tx, w.id, w.gamesserver_id, w.balance, w.balance_second, w.telegram_price
    FROM wallets w WHERE w.id = ANY (l_wallets) ORDER BY w.id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT tx, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint, NULL::bigint;
  END IF;
END $$;
