import type { ColumnType, Generated, Kysely, Selectable, Transaction } from 'kysely';

/** Timestamps come back as Date and may be written as Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** int8 columns are parsed to bigint by both drivers (see db/client.ts). */
export type Int8 = ColumnType<bigint, bigint | number, bigint | number>;
export type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: Generated<number>;
  name: Generated<string>;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  admin: Generated<boolean>;
  vip_until: NullableTimestamp;
  blocked_at: NullableTimestamp;
  telegram_id: ColumnType<bigint | null, bigint | number | null | undefined, bigint | number | null>;
  telegram_chat_id: ColumnType<bigint | null, bigint | number | null | undefined, bigint | number | null>;
  discord_id: string | null;
  /** 0036: the Discord id was linked by its verified email (a recovery unlinks only such a link). */
  discord_linked_by_email: Generated<boolean>;
  /** 0041: a recovery closed linking any Discord account to this user by its verified email. */
  discord_email_links_closed_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** 0021: set while TOTP is on (never logged, never answered). */
  totp_secret: string | null;
  /** 0021; no longer written since 0042 (always NULL): a pending setup is kept on its session, `tokens.totp_pending_secret`. */
  totp_pending_secret: string | null;
  totp_last_step: ColumnType<bigint | null, bigint | number | null | undefined, bigint | number | null>;
}

export interface Limit {
  min: number;
  max: number;
}
export interface ServerLimits {
  input: Record<'1' | '2', Limit>;
  output: Record<'1' | '2', Limit>;
}

export interface GamesserversTable {
  id: Generated<number>;
  name: string;
  active: Generated<boolean>;
  sort_order: Generated<number>;
  cashier_nick: string;
  limits: Json<ServerLimits>;
  code_fee_bp: Generated<number>;
  vip_code_fee_bp: Generated<number>;
  min_nominal: ColumnType<bigint, bigint | number | undefined, bigint | number>;
  standard_nominals: ColumnType<number[], string | undefined, string>;
  vip_price: ColumnType<bigint, bigint | number | undefined, bigint | number>;
  vip_period_days: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WalletsTable {
  id: Generated<number>;
  user_id: number;
  gamesserver_id: number;
  nick: string | null;
  balance: ColumnType<bigint, bigint | number | undefined, bigint | number>;
  balance_second: ColumnType<bigint, bigint | number | undefined, bigint | number>;
  new_message: Generated<boolean>;
  telegram_price: ColumnType<bigint | null, bigint | number | null | undefined, bigint | number | null>;
  created_at: Generated<Date>;
}

export type TokenKind = 'access' | 'new_password' | 'realtime' | 'download';

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  kind: TokenKind;
  token_hash: string;
  created_at: Generated<Date>;
  /** The hard end (an access token: SESSION_MAX_DAYS after sign-in); NULL for none. */
  expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  /** 0015_sessions: written by the bearer lookup at most once a minute. */
  last_seen_at: Generated<Date>;
  /** An access token ends this many seconds after last_seen_at (SESSION_IDLE_HOURS); NULL for none. */
  idle_seconds: number | null;
  /** How the session was signed in: email, phone, discord, telegram, telegram_app, … (access tokens). */
  method: string | null;
  ip: string | null;
  user_agent: string | null;
  /** A realtime token's session: ending the session deletes it (ON DELETE CASCADE). */
  session_id: number | null;
  /** 0022_step_up: when this session last gave a good X-Two-Factor-Code. */
  stepped_up_at: NullableTimestamp;
  /** 0042: this session's TOTP setup, between /2fa/setup and /2fa/enable (access tokens; never logged). */
  totp_pending_secret: string | null;
}

export type LedgerAccountKind = 'wallet' | 'cash' | 'payout' | 'escrow' | 'fees';

export interface LedgerAccountsTable {
  id: Generated<number>;
  key: string;
  kind: LedgerAccountKind;
  gamesserver_id: number;
  currency_type: 1 | 2;
  wallet_id: number | null;
}

export interface LedgerTransactionsTable {
  id: ColumnType<bigint, never, never>;
  kind: string;
  ref_type: string | null;
  ref_id: ColumnType<bigint | null, bigint | number | null | undefined, never>;
  actor_user_id: number | null;
  created_at: Generated<Date>;
}

export interface LedgerEntriesTable {
  id: ColumnType<bigint, never, never>;
  transaction_id: ColumnType<bigint, bigint, never>;
  account_id: number;
  amount: ColumnType<bigint, bigint, never>;
  balance_after: ColumnType<bigint | null, bigint | null, never>;
  created_at: Generated<Date>;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Generated<Date>;
}

// 0004_requests: deposits and withdrawals, idempotent answers, the operators' audit log.
export type RequestType = 'input' | 'output';
export type RequestStatus = 'pending' | 'completed' | 'rejected' | 'cancelled';

export interface BalanceRequestsTable {
  id: Generated<number>;
  user_id: number;
  wallet_id: number;
  gamesserver_id: number;
  type: RequestType;
  currency_type: 1 | 2;
  amount: ColumnType<bigint, bigint | number, bigint | number>;
  status: ColumnType<RequestStatus, RequestStatus | undefined, RequestStatus>;
  nick: string;
  cashier_nick: string;
  comment: string | null;
  hidden_at: NullableTimestamp;
  processed_by: number | null;
  processed_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  // 0020_operators_shift (decision record 0023).
  claimed_by: ColumnType<number | null, number | null | undefined, number | null>;
  claimed_at: NullableTimestamp;
  /** When the holder first took it; a renewal by the holder keeps it (migration 0031). */
  claim_started_at: NullableTimestamp;
  /** The operator whose claim a block, a demotion or a TOTP rescue dropped; the player's cancel waits for an operator (migration 0045). */
  claim_dropped_by: ColumnType<number | null, number | null | undefined, number | null>;
  vip_alerted_at: NullableTimestamp;
  overdue_alerted_at: NullableTimestamp;
}

export interface IdempotencyKeysTable {
  user_id: number;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  response_status: number | null;
  /** The answer, as jsonb: written and read only by db/functions/idempotency.sql. */
  response_body: ColumnType<unknown, never, never>;
  created_at: Generated<Date>;
}

export interface AdminAuditLogTable {
  id: ColumnType<bigint, never, never>;
  admin_id: number;
  action: string;
  entity_type: string;
  entity_id: string;
  /** JSON written as a string, read back as the parsed value. */
  before: ColumnType<unknown, string | null, never>;
  after: ColumnType<unknown, string | null, never>;
  created_at: Generated<Date>;
}

// Later modules extend this interface with their tables (one section per migration).
export interface Database {
  users: UsersTable;
  gamesservers: GamesserversTable;
  wallets: WalletsTable;
  tokens: TokensTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_transactions: LedgerTransactionsTable;
  ledger_entries: LedgerEntriesTable;
  schema_migrations: SchemaMigrationsTable;
  balance_requests: BalanceRequestsTable;
  idempotency_keys: IdempotencyKeysTable;
  admin_audit_log: AdminAuditLogTable;
}

/**
 * The database, or a transaction on it. Services and lib name the handle they pass to
 * repositories through these two types; only repositories and db/ import Kysely itself.
 */
/** A user row as the server's modules know it. */
export type UserRow = Selectable<UsersTable>;
export type DbHandle = Kysely<Database>;
export type Trx = Transaction<Database>;
