-- Session changes announced by the database (decision record 0026). Each app process keeps the
-- callers of recent requests in memory and LISTENs on `session_changed`; these triggers NOTIFY the
-- user's id whenever something the bearer rule (token_user) or GET /api/user reads may have
-- changed, so every path that ends a session or changes a user — logout, ending sessions, password
-- change and reset, an admin's block, TOTP on or off, a VIP purchase — is covered here and
-- not restated in TypeScript. The once-a-minute `last_seen_at` touch of a request does not notify.
-- PostgreSQL folds equal notifications of one transaction into one, so a statement touching many
-- rows of a user sends one.

CREATE FUNCTION session_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  uid integer;
BEGIN
  IF TG_TABLE_NAME = 'users' THEN
    uid := NEW.id;
  ELSIF TG_OP = 'DELETE' THEN
    uid := OLD.user_id;
  ELSE
    uid := NEW.user_id;
  END IF;
  PERFORM pg_notify('session_changed', uid::text);
  RETURN NULL;
END $$;

CREATE TRIGGER users_session_changed AFTER UPDATE ON users FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION session_changed();

CREATE TRIGGER tokens_session_ended AFTER DELETE ON tokens FOR EACH ROW
  WHEN (OLD.kind = 'access') EXECUTE FUNCTION session_changed();

-- A session's token rotated (password change) or its end moved; not the touch of a request, which
-- only moves last_seen_at forward and so only postpones the end a cached copy knows. last_seen_at
-- moving back (nothing in the app does; a test ageing a session does) notifies too.
CREATE TRIGGER tokens_session_changed AFTER UPDATE ON tokens FOR EACH ROW
  WHEN (OLD.kind = 'access' AND ((OLD.token_hash, OLD.expires_at, OLD.idle_seconds, OLD.user_id, OLD.kind)
        IS DISTINCT FROM (NEW.token_hash, NEW.expires_at, NEW.idle_seconds, NEW.user_id, NEW.kind)
        OR NEW.last_seen_at < OLD.last_seen_at))
  EXECUTE FUNCTION session_changed();
