import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../schema';

// 0019_seller_api: API keys, their call log, webhooks and the webhook outbox (decision record 0022).
declare module '../schema' {
  interface Database {
    api_keys: ApiKeysTable;
    api_key_calls: ApiKeyCallsTable;
    webhooks: WebhooksTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface ApiKeyCallsTable {
  id: Generated<bigint>;
  api_key_id: number;
  user_id: number;
  method: string;
  path: string;
  status_code: number;
  ip: string | null;
  created_at: Generated<Date>;
}

export interface WebhooksTable {
  user_id: number;
  url: string;
  events: string[];
  secret: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<bigint>;
  user_id: number;
  type: string;
  body: string;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: NullableTimestamp;
  created_at: Timestamp;
}
