-- The operators' audit log is written, never changed: the database refuses an UPDATE, DELETE or
-- TRUNCATE of it as it does for ledger entries (refuse_removal, 0012_hot_rows.sql).
CREATE TRIGGER admin_audit_log_kept BEFORE UPDATE OR DELETE ON admin_audit_log FOR EACH ROW EXECUTE FUNCTION refuse_removal();
CREATE TRIGGER admin_audit_log_kept_all BEFORE TRUNCATE ON admin_audit_log FOR EACH STATEMENT EXECUTE FUNCTION refuse_removal();
