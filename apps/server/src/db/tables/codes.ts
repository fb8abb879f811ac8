import type { ColumnType, Generated } from 'kysely';
import type { Int8, NullableTimestamp, Timestamp } from '../schema';

// 0005_codes: gift codes, user variants, activation attempts, incidents, Telegram notices and links.
declare module '../schema' {
  interface Database {
    pricekods: PricekodsTable;
    codes: CodesTable;
    code_attempts: CodeAttemptsTable;
    code_incidents: CodeIncidentsTable;
    telegram_notices: TelegramNoticesTable;
    telegram_link_tokens: TelegramLinkTokensTable;
  }
}

export type CodeStatus = 'active' | 'activated' | 'cancelled';
export type CodeAttemptResult = 'activated' | 'already_activated' | 'cancelled' | 'own_code' | 'not_found' | 'server_closed';
export type TelegramNoticeStatus = 'pending' | 'sent' | 'failed' | 'no_chat' | 'no_bot';

export interface PricekodsTable {
  id: Generated<number>;
  user_id: number;
  wallet_id: number;
  gamesserver_id: number;
  nominal: Int8;
  deleted_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CodesTable {
  id: Generated<number>;
  sert: string;
  user_id: number;
  wallet_id: number;
  gamesserver_id: number;
  nominal: Int8;
  fee: Int8;
  price: Int8;
  status: ColumnType<CodeStatus, CodeStatus | undefined, CodeStatus>;
  pricekod_id: number | null;
  activated_by: number | null;
  activated_wallet_id: number | null;
  activated_at: NullableTimestamp;
  cancelled_by: number | null;
  cancelled_at: NullableTimestamp;
  created_at: Generated<Date>;
  /** 0019_seller_api: the seller's own order number, given to POST /api/v1/codes. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CodeAttemptsTable {
  id: ColumnType<bigint, never, never>;
  code_id: number | null;
  user_id: number;
  ip: string | null;
  result: CodeAttemptResult;
  sert_tried: string | null;
  created_at: Generated<Date>;
}

export interface CodeIncidentsTable {
  id: Generated<number>;
  code_id: number;
  user_id: number;
  gamesserver_id: number;
  attempted_by: number;
  attempt_ip: string | null;
  code_status: 'activated' | 'cancelled';
  acknowledged_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface TelegramNoticesTable {
  id: ColumnType<bigint, never, never>;
  user_id: number;
  wallet_id: number;
  gamesserver_id: number;
  /** 0018_statement_and_notices: a balance below the threshold, or an operator's decision (request_id). */
  kind: ColumnType<'balance_drop' | 'request_decision', 'balance_drop' | 'request_decision' | undefined, never>;
  request_id: number | null;
  threshold: ColumnType<bigint | null, bigint | number | null | undefined, never>;
  balance: ColumnType<bigint | null, bigint | number | null | undefined, never>;
  chat_id: ColumnType<bigint | null, bigint | number | null | undefined, bigint | number | null>;
  text: string;
  status: ColumnType<TelegramNoticeStatus, TelegramNoticeStatus | undefined, TelegramNoticeStatus>;
  error: string | null;
  sent_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface TelegramLinkTokensTable {
  token_hash: string;
  user_id: number;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Generated<Date>;
  /** 0046: the session (access token row) that asked for the link; the link dies with it. NULL links nothing. */
  session_id: ColumnType<number | null, number | null | undefined, number | null>;
}
