-- Deposits and withdrawals (balance requests), stored answers of idempotent calls, and the
-- operators' audit log.

-- A player's deposit (type 'input') or withdrawal (type 'output') on one wallet. A withdrawal's
-- amount sits on the server's 'payout' account while it is pending (the audit checks that the
-- payout account equals the pending withdrawals); a deposit moves nothing until completed.
CREATE TABLE balance_requests (
  id             serial PRIMARY KEY,
  user_id        integer NOT NULL REFERENCES users(id),
  wallet_id      integer NOT NULL REFERENCES wallets(id),
  gamesserver_id integer NOT NULL REFERENCES gamesservers(id),
  type           text NOT NULL CHECK (type IN ('input', 'output')),
  currency_type  smallint NOT NULL CHECK (currency_type IN (1, 2)),
  amount         bigint NOT NULL CHECK (amount > 0),
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'rejected', 'cancelled')),
  -- The player's character and the service's cashier at the time of the request: the operator
  -- trades between exactly these two, even if either nick changes later.
  nick           text NOT NULL,
  cashier_nick   text NOT NULL,
  -- The operator's reason on rejection (shown to the player).
  comment        text,
  -- Set by /delete_balance_user/: the player removed the entry from their own history. The row
  -- stays for the operators and the audit.
  hidden_at      timestamptz,
  processed_by   integer REFERENCES users(id),
  processed_at   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  -- A finished request has a finishing time; a pending one has none and can't be hidden.
  CHECK ((status = 'pending') = (processed_at IS NULL)),
  CHECK (hidden_at IS NULL OR status <> 'pending')
);
-- The player's history, newest first, optionally of one server.
CREATE INDEX balance_requests_user_history ON balance_requests (user_id, id DESC) WHERE hidden_at IS NULL;
CREATE INDEX balance_requests_user_server_history ON balance_requests (user_id, gamesserver_id, id DESC) WHERE hidden_at IS NULL;
-- The operators' queue: by status, oldest first; pending ones are the hot part.
CREATE INDEX balance_requests_queue ON balance_requests (status, id);
CREATE INDEX balance_requests_pending ON balance_requests (gamesserver_id, type, id) WHERE status = 'pending';

-- The first answer of a call made with an Idempotency-Key header, per user and key. The row is
-- inserted (claimed) before the handler runs, so a parallel retry finds it and waits for the
-- stored answer instead of running the handler a second time; response_status is NULL while
-- the first call is still running.
CREATE TABLE idempotency_keys (
  user_id         integer NOT NULL REFERENCES users(id),
  key             text NOT NULL CHECK (length(key) BETWEEN 1 AND 100),
  method          text NOT NULL,
  path            text NOT NULL,
  -- SHA-256 of method, path and body: the same key with another request is refused.
  request_hash    text NOT NULL,
  response_status integer,
  response_body   text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- What an operator did, with the record before and after. Generic: any admin action on any
-- entity (entity_id is text so that any key fits).
CREATE TABLE admin_audit_log (
  id          bigserial PRIMARY KEY,
  admin_id    integer NOT NULL REFERENCES users(id),
  action      text NOT NULL,
  entity_type text NOT NULL,
  entity_id   text NOT NULL,
  before      jsonb,
  after       jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_audit_log_entity ON admin_audit_log (entity_type, entity_id, id);
CREATE INDEX admin_audit_log_admin ON admin_audit_log (admin_id, id);
