import type { Generated } from 'kysely';

// 0023_secret_keys: keys the server made for itself when no setting gives one (decision record 0020).
declare module '../schema' {
  interface Database {
    secret_keys: SecretKeysTable;
  }
}

export interface SecretKeysTable {
  name: string;
  /** 32 random bytes, base64. */
  key: string;
  created_at: Generated<Date>;
}
