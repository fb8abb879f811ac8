-- A lighter withdrawal statement (decision record 0031), no rule changed.
--
-- The ledger entries' statement trigger (the database's own double-entry check, 0012_hot_rows.sql and
-- 0025_withdrawal_path.sql) checks the same three things, in one pass over the added entries with a
-- plain aggregate instead of a UNION of three scans with a hashed GROUP BY: every account exists,
-- every transaction exists, and, when the statement wrote one transaction's entries (every posting
-- does), their sum is zero. Only when something is wrong, or the statement wrote entries of several
-- transactions, does a second query find which: the same errors and SQLSTATEs as before.
CREATE OR REPLACE FUNCTION ledger_entries_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lo bigint;
  hi bigint;
  total numeric;
  accounts_ok boolean;
  transactions_ok boolean;
  bad bigint;
BEGIN
  SELECT min(a.transaction_id), max(a.transaction_id), sum(a.amount),
         bool_and(EXISTS (SELECT FROM ledger_accounts x WHERE x.id = a.account_id)),
         bool_and(EXISTS (SELECT FROM ledger_transactions x WHERE x.id = a.transaction_id))
    INTO lo, hi, total, accounts_ok, transactions_ok
    FROM added a;
  IF lo IS NULL THEN
    RETURN NULL;
  END IF;
  IF NOT accounts_ok THEN
    SELECT a.account_id INTO bad FROM added a WHERE NOT EXISTS (SELECT FROM ledger_accounts x WHERE x.id = a.account_id) LIMIT 1;
    RAISE EXCEPTION 'no ledger account %', bad USING ERRCODE = '23503';
  END IF;
  IF NOT transactions_ok THEN
    SELECT a.transaction_id INTO bad FROM added a WHERE NOT EXISTS (SELECT FROM ledger_transactions x WHERE x.id = a.transaction_id) LIMIT 1;
    RAISE EXCEPTION 'no ledger transaction %', bad USING ERRCODE = '23503';
  END IF;
  IF lo = hi THEN
    IF total <> 0 THEN
      RAISE EXCEPTION 'ledger transaction % does not balance', lo USING ERRCODE = '23514';
    END IF;
  ELSE
    SELECT a.transaction_id INTO bad FROM added a GROUP BY a.transaction_id HAVING sum(a.amount) <> 0 LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'ledger transaction % does not balance', bad USING ERRCODE = '23514';
    END IF;
  END IF;
  RETURN NULL;
END $$;
