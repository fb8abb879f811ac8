-- The rows money refers to are never deleted nor renumbered, and the money tables check their
-- references with triggers that look the row up without locking it (decision record 0014).
--
-- A foreign-key check locks the row it points at (SELECT … FOR KEY SHARE) until COMMIT. Every
-- withdrawal points at the same game-server row and payout account, and withdrawals from one
-- wallet at the same user, wallet and wallet-account rows; with many at once, each lock makes
-- PostgreSQL write a new MultiXact of all the current lockers onto those rows. What such a lock
-- guards against is the row being deleted, or its key changed, before the check's transaction
-- ends. The database refuses that outright here, so a trigger's lookup without a lock is enough:
-- a reference to a row that does not exist is refused as before (SQLSTATE 23503), and the row it
-- found stays.

CREATE FUNCTION refuse_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'rows of % are never deleted nor renumbered: money refers to them', TG_TABLE_NAME USING ERRCODE = '42501';
END $$;

CREATE TRIGGER users_kept BEFORE DELETE OR UPDATE OF id ON users FOR EACH ROW EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER users_kept_all BEFORE TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER gamesservers_kept BEFORE DELETE OR UPDATE OF id ON gamesservers FOR EACH ROW EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER gamesservers_kept_all BEFORE TRUNCATE ON gamesservers FOR EACH STATEMENT EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER wallets_kept BEFORE DELETE OR UPDATE OF id, user_id, gamesserver_id ON wallets FOR EACH ROW EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER wallets_kept_all BEFORE TRUNCATE ON wallets FOR EACH STATEMENT EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER ledger_accounts_kept BEFORE DELETE OR UPDATE ON ledger_accounts FOR EACH ROW EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER ledger_accounts_kept_all BEFORE TRUNCATE ON ledger_accounts FOR EACH STATEMENT EXECUTE FUNCTION refuse_removal();

-- A deposit or withdrawal names its wallet, and the wallet's user and game server: one lookup
-- checks all three and that they belong together (three foreign keys checked each apart before).
ALTER TABLE balance_requests
  DROP CONSTRAINT balance_requests_user_id_fkey,
  DROP CONSTRAINT balance_requests_wallet_id_fkey,
  DROP CONSTRAINT balance_requests_gamesserver_id_fkey;
CREATE FUNCTION balance_requests_wallet_exists() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM wallets w WHERE w.id = NEW.wallet_id AND w.user_id = NEW.user_id AND w.gamesserver_id = NEW.gamesserver_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no wallet % of user % on game server %', NEW.wallet_id, NEW.user_id, NEW.gamesserver_id USING ERRCODE = '23503';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER balance_requests_wallet BEFORE INSERT OR UPDATE OF user_id, wallet_id, gamesserver_id ON balance_requests
  FOR EACH ROW EXECUTE FUNCTION balance_requests_wallet_exists();

ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_actor_user_id_fkey;
CREATE FUNCTION ledger_transactions_actor_exists() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.actor_user_id IS NOT NULL THEN
    PERFORM FROM users u WHERE u.id = NEW.actor_user_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'no user % to act in a ledger transaction', NEW.actor_user_id USING ERRCODE = '23503';
    END IF;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_transactions_actor BEFORE INSERT OR UPDATE OF actor_user_id ON ledger_transactions
  FOR EACH ROW EXECUTE FUNCTION ledger_transactions_actor_exists();

-- The entries of one INSERT are checked together when it ends: every account exists, and every
-- transaction they belong to sums to zero. This replaces the account foreign key and the
-- deferred per-entry balance check of 0002_ledger.sql with one check per posting; it is stricter,
-- as a transaction's entries must balance at the end of each statement that writes them
-- (ledger_post writes all legs in one).
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_id_fkey;
DROP TRIGGER ledger_entries_balanced ON ledger_entries;
DROP FUNCTION ledger_check_balanced();
CREATE FUNCTION ledger_entries_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad bigint;
BEGIN
  SELECT a.account_id INTO bad FROM added a WHERE NOT EXISTS (SELECT FROM ledger_accounts x WHERE x.id = a.account_id) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'no ledger account %', bad USING ERRCODE = '23503';
  END IF;
  SELECT t.transaction_id INTO bad FROM (SELECT DISTINCT a.transaction_id FROM added a) t
    WHERE (SELECT sum(e.amount) FROM ledger_entries e WHERE e.transaction_id = t.transaction_id) <> 0 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger transaction % does not balance', bad USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_entries_checked AFTER INSERT ON ledger_entries REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_check();

-- ledger_post writes the transaction row and finds every account before it updates the first
-- wallet; its live definition is in db/functions/ledger.sql.
