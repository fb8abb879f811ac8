-- Double-entry ledger. Every movement of value is one ledger_transactions row with entries
-- that sum to zero. Wallet accounts keep their running balance in wallets.balance /
-- wallets.balance_second (CHECK >= 0); the service's own accounts (cash, payout, escrow,
-- fees) keep no running balance, so hot per-server rows are never locked: their balances
-- are sums of entries, checked by the audit.

CREATE TABLE ledger_accounts (
  id             serial PRIMARY KEY,
  key            text NOT NULL UNIQUE,
  kind           text NOT NULL CHECK (kind IN ('wallet', 'cash', 'payout', 'escrow', 'fees')),
  gamesserver_id integer NOT NULL REFERENCES gamesservers(id),
  currency_type  smallint NOT NULL CHECK (currency_type IN (1, 2)),
  wallet_id      integer REFERENCES wallets(id),
  CHECK ((kind = 'wallet') = (wallet_id IS NOT NULL))
);

CREATE TABLE ledger_transactions (
  id             bigserial PRIMARY KEY,
  kind           text NOT NULL,
  ref_type       text,
  ref_id         bigint,
  actor_user_id  integer REFERENCES users(id),
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_transactions_ref ON ledger_transactions (ref_type, ref_id);

CREATE TABLE ledger_entries (
  id             bigserial PRIMARY KEY,
  transaction_id bigint NOT NULL REFERENCES ledger_transactions(id),
  account_id     integer NOT NULL REFERENCES ledger_accounts(id),
  amount         bigint NOT NULL CHECK (amount <> 0),
  -- The wallet's balance right after this entry; NULL for the service's accounts.
  balance_after  bigint CHECK (balance_after IS NULL OR balance_after >= 0),
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id);
CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id);

-- The database itself refuses an unbalanced transaction: checked at COMMIT, after all legs exist.
CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE transaction_id = NEW.transaction_id) <> 0 THEN
    RAISE EXCEPTION 'ledger transaction % does not balance', NEW.transaction_id USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced
  AFTER INSERT ON ledger_entries DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();

-- History is append-only: a mistake is corrected by a new transaction, never by an edit.
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = '42501';
END $$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
