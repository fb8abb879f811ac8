import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../schema';

// 0003_auth: one-time code flows, Discord sign-in state, rate-limit counters.
declare module '../schema' {
  interface Database {
    auth_flows: AuthFlowsTable;
    discord_link_refusals: DiscordLinkRefusalsTable;
    known_browsers: KnownBrowsersTable;
    oauth_states: OauthStatesTable;
    rate_limits: RateLimitsTable;
    telegram_sign_ins: TelegramSignInsTable;
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
  /** The browser that asked for the flow (0034): a reset from a known browser has a minute of its own. */
  browser_hash: string | null;
}

/** 0035: a Discord account a recovery unlinked from a user, never linked to them again by email. */
export interface DiscordLinkRefusalsTable {
  user_id: number;
  discord_id: string;
  created_at: Generated<Date>;
}

/** 0034: a browser (the hash of its `aw_browser` key) a user has signed in from. */
export interface KnownBrowsersTable {
  user_id: number;
  browser_hash: string;
  last_seen_at: Generated<Date>;
}

export interface OauthStatesTable {
  state_hash: string;
  provider: 'discord';
  code_verifier: string;
  redirect_uri: string;
  /** SHA-256 of the browser key (cookie) of the browser that asked for the state; migration 0016. */
  browser_hash: string | null;
  expires_at: Timestamp;
  created_at: Generated<Date>;
}

/** 0016: Telegram sign-in results already used, by their hash. */
export interface TelegramSignInsTable {
  hash: string;
  expires_at: Timestamp;
}

export interface RateLimitsTable {
  key: string;
  hits: number;
  window_start: Timestamp;
}
