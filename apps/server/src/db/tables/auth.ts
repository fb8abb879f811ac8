import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../schema';

// 0003_auth: one-time code flows, Discord sign-in state, rate-limit counters.
declare module '../schema' {
  interface Database {
    auth_flows: AuthFlowsTable;
    oauth_states: OauthStatesTable;
    rate_limits: RateLimitsTable;
  }
}

export type AuthFlowPurpose = 'register' | 'reset';
export type AuthChannel = 'email' | 'sms';

export interface AuthFlowsTable {
  id: Generated<number>;
  token_hash: string;
  purpose: AuthFlowPurpose;
  channel: AuthChannel;
  address: string;
  user_id: number | null;
  code_hash: string | null;
  password_hash: string | null;
  name: string | null;
  tries: Generated<number>;
  resends: Generated<number>;
  expires_at: Timestamp;
  last_sent_at: Timestamp;
  consumed_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface OauthStatesTable {
  state_hash: string;
  provider: 'discord';
  code_verifier: string;
  redirect_uri: string;
  expires_at: Timestamp;
  created_at: Generated<Date>;
}

export interface RateLimitsTable {
  key: string;
  hits: number;
  window_start: Timestamp;
}
