import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/schema';
import { activeWalletsCompiled, activeWalletsQuery } from './wallets.repository';

describe('the wallet list compiled once', () => {
  // Compiling needs no connection.
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as pg.Pool }) });

  it('is the statement a fresh compile gives, for one owner and for several', () => {
    for (const owners of [[7], [7, 8, 9], [12, 12], [3]]) {
      const fresh = activeWalletsQuery(db, owners).compile();
      const reused = activeWalletsCompiled(db, owners);
      expect({ sql: reused.sql, parameters: reused.parameters }).toEqual({ sql: fresh.sql, parameters: fresh.parameters });
    }
  });
});
