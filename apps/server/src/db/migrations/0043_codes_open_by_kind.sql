-- The price data lists a player's open single codes and their batches' open codes apart, the newest 1 000 of
-- each (codes.repository.ts, priceDataStatement): each list reads its own index in id order and stops at the
-- limit, instead of filtering codes_issuer_open on pricekod_id, which read every open code of the other kind.
CREATE INDEX codes_issuer_open_single ON codes (user_id, gamesserver_id, id) WHERE status = 'active' AND pricekod_id IS NULL;
CREATE INDEX codes_issuer_open_batch ON codes (user_id, gamesserver_id, id) WHERE status = 'active' AND pricekod_id IS NOT NULL;
