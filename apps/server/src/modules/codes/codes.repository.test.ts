import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/schema';
import { codesRepository } from './codes.repository';

describe('the price data statement compiled once', () => {
  // Compiling needs no connection.
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as pg.Pool }) });

  it('is the statement a fresh compile gives, for one pair and for several', () => {
    const pairs = [[{ ownerId: 7, gameServerId: 2 }], [{ ownerId: 7, gameServerId: 2 }, { ownerId: 9, gameServerId: 3 }, { ownerId: 7, gameServerId: 3 }], [{ ownerId: 4, gameServerId: 1 }]];
    for (const each of pairs) {
      const fresh = codesRepository.priceDataQuery(db, each);
      const reused = codesRepository.priceDataCompiled(db, each);
      expect({ sql: reused.sql, parameters: reused.parameters }).toEqual({ sql: fresh.sql, parameters: fresh.parameters });
    }
    expect(codesRepository.priceDataCompiled(db, pairs[1]!).parameters.slice(0, 2)).toEqual(['{7,9,7}', '{2,3,3}']);
  });
});
