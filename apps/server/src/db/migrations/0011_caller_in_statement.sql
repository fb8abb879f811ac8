-- The caller of a money call is found inside the call's own statement (decision record 0014):
-- caller_id (db/functions/sessions.sql) and request_open_once (db/functions/requests.sql), whose
-- live definitions migrate.ts applies after the migrations.

-- What request_open answers, and whether it is the stored answer of an earlier call with the
-- same Idempotency-Key (the columns of request_open's table, then `replayed`).
CREATE TYPE opened_request AS (
  id integer, user_id integer, wallet_id integer, gamesserver_id integer, type text, currency_type smallint,
  amount bigint, status text, nick text, cashier_nick text, comment text, hidden_at timestamptz,
  processed_by integer, processed_at timestamptz, created_at timestamptz, updated_at timestamptz,
  gamesserver text, balance bigint, balance_second bigint, notice_id bigint, notice_chat_id bigint, notice_text text,
  replayed boolean
);
