-- What a player's price data shows of their codes and variants, announced by the database (decision record
-- 0026, "Codes and variants held in memory"). Each app process keeps, per (player, game server), the open
-- codes, the variants with their counts and the last code the player activated, as last read, and LISTENs on
-- `price_data_changed` on the change feed's connection; these triggers NOTIFY the user ids a change of a code or
-- a variant may show to: a code's issuer (their open codes, their variants' counts) and its activator (their
-- last activated code), a variant's owner. Every path that writes codes or variants — issue, activation,
-- cancel, an operator's cancel or block, the purge — is covered here and not restated in TypeScript. The
-- game server's row is held with them: an operator's change of a server (rare) drops everything held. The
-- wallet is not held: each request reads it.
-- PostgreSQL folds equal notifications of one transaction into one.

CREATE FUNCTION price_data_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[] := '{}';
BEGIN
  -- Nested: a variant's row has no activated_by, and a condition is planned whole.
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    ids := ids || OLD.user_id;
    IF TG_TABLE_NAME = 'codes' THEN ids := ids || OLD.activated_by; END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    ids := ids || NEW.user_id;
    IF TG_TABLE_NAME = 'codes' THEN ids := ids || NEW.activated_by; END IF;
  END IF;
  PERFORM pg_notify('price_data_changed', id::text) FROM (SELECT DISTINCT unnest(ids) AS id) u WHERE id IS NOT NULL;
  RETURN NULL;
END $$;

-- A table emptied at once (a restore, a test's reset), or a game server changed, changes everyone's.
CREATE FUNCTION price_data_all_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('price_data_changed', '*');
  RETURN NULL;
END $$;

CREATE TRIGGER codes_price_data_inserted AFTER INSERT ON codes FOR EACH ROW EXECUTE FUNCTION price_data_changed();
CREATE TRIGGER codes_price_data_updated AFTER UPDATE ON codes FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION price_data_changed();
CREATE TRIGGER codes_price_data_deleted AFTER DELETE ON codes FOR EACH ROW EXECUTE FUNCTION price_data_changed();

CREATE TRIGGER pricekods_price_data_inserted AFTER INSERT ON pricekods FOR EACH ROW EXECUTE FUNCTION price_data_changed();
CREATE TRIGGER pricekods_price_data_updated AFTER UPDATE ON pricekods FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION price_data_changed();
CREATE TRIGGER pricekods_price_data_deleted AFTER DELETE ON pricekods FOR EACH ROW EXECUTE FUNCTION price_data_changed();

CREATE TRIGGER codes_price_data_truncated AFTER TRUNCATE ON codes FOR EACH STATEMENT EXECUTE FUNCTION price_data_all_changed();
CREATE TRIGGER pricekods_price_data_truncated AFTER TRUNCATE ON pricekods FOR EACH STATEMENT EXECUTE FUNCTION price_data_all_changed();

CREATE TRIGGER gamesservers_price_data_changed AFTER UPDATE OR DELETE ON gamesservers FOR EACH STATEMENT
  EXECUTE FUNCTION price_data_all_changed();
CREATE TRIGGER gamesservers_price_data_truncated AFTER TRUNCATE ON gamesservers FOR EACH STATEMENT EXECUTE FUNCTION price_data_all_changed();
