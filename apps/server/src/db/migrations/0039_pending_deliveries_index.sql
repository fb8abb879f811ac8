-- The purge's look for webhook deliveries left pending past their days (their job gone): by age, among
-- the pending ones only, instead of a scan of the whole delivery log every ten minutes.
CREATE INDEX webhook_deliveries_pending_created ON webhook_deliveries (created_at) WHERE status = 'pending';
