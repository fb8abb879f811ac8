import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../schema';

// 0021_second_factors: recovery codes, pending two-factor sign-ins, passkeys, WebAuthn challenges.
declare module '../schema' {
  interface Database {
    recovery_codes: RecoveryCodesTable;
    two_factor_challenges: TwoFactorChallengesTable;
    passkeys: PasskeysTable;
    webauthn_challenges: WebauthnChallengesTable;
  }
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface TwoFactorChallengesTable {
  token_hash: string;
  user_id: number;
  attempts: Generated<number>;
  expires_at: Timestamp;
  created_at: Generated<Date>;
  /** A password reset waiting for the second factor (migration 0028). */
  new_password_hash: string | null;
  /** A Discord id to link to the user once the second factor is given (migration 0033). */
  link_discord_id: string | null;
}

export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  credential_id: string;
  public_key: Uint8Array;
  counter: ColumnType<bigint, bigint | number | undefined, bigint | number>;
  transports: ColumnType<string[], string[] | undefined, string[]>;
  name: string;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
}

export interface WebauthnChallengesTable {
  challenge: string;
  purpose: 'register' | 'login';
  user_id: number | null;
  expires_at: Timestamp;
}
