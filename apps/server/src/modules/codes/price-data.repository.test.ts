import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/schema';
import { priceDataRepository } from './price-data.repository';

describe('the price data statement compiled once', () => {
  // Compiling needs no connection.
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as pg.Pool }) });

  it('is the statement a fresh compile gives, for one pair and for several', () => {
    const pairs = [[{ ownerId: 7, gameServerId: 2 }], [{ ownerId: 7, gameServerId: 2 }, { ownerId: 9, gameServerId: 3 }, { ownerId: 7, gameServerId: 3 }], [{ ownerId: 4, gameServerId: 1 }]];
    for (const each of pairs) {
      const fresh = priceDataRepository.priceDataQuery(db, each);
      const reused = priceDataRepository.priceDataCompiled(db, each);
      expect({ sql: reused.sql, parameters: reused.parameters }).toEqual({ sql: fresh.sql, parameters: fresh.parameters });
    }
    expect(priceDataRepository.priceDataCompiled(db, pairs[1]!).parameters.slice(0, 2)).toEqual(['{7,9,7}', '{2,3,3}']);
  });

  it('and so is the server-and-wallet statement for pairs whose codes are held', () => {
    const pairs = [[{ ownerId: 7, gameServerId: 2 }], [{ ownerId: 7, gameServerId: 2 }, { ownerId: 9, gameServerId: 3 }], [{ ownerId: 4, gameServerId: 1 }]];
    for (const each of pairs) {
      const fresh = priceDataRepository.priceDataHeldQuery(db, each);
      const reused = priceDataRepository.priceDataHeldCompiled(db, each);
      expect({ sql: reused.sql, parameters: reused.parameters }).toEqual({ sql: fresh.sql, parameters: fresh.parameters });
    }
    expect(priceDataRepository.priceDataHeldCompiled(db, pairs[1]!).parameters).toEqual(['{7,9}', '{2,3}']);
  });
});
