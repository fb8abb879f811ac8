import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from './client';
import { commandOf } from './pglite-pool';

describe('the PGlite pool', () => {
  it('names the command of a statement with WITH queries, however nested their parentheses', () => {
    expect(commandOf('SELECT 1')).toBe('SELECT');
    expect(commandOf('  update t set a = 1')).toBe('UPDATE');
    expect(commandOf(`WITH due AS MATERIALIZED (SELECT id FROM t WHERE (a IN (1, 2)) AND b = (SELECT max(c) FROM u) LIMIT 1)
      UPDATE t SET a = 1 FROM due WHERE t.id = due.id`)).toBe('UPDATE');
    expect(commandOf('WITH a AS (SELECT 1), b AS NOT MATERIALIZED (SELECT (2)) DELETE FROM t USING a')).toBe('DELETE');
    expect(commandOf('WITH mine AS (SELECT 1), retried AS (UPDATE t SET a = 1 RETURNING id) SELECT * FROM mine')).toBe('SELECT');
    expect(commandOf('WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) INSERT INTO t SELECT n FROM r')).toBe('INSERT');
  });

  describe('on the embedded database', () => {
    let db: Db;
    beforeAll(async () => {
      db = await createDb({ dataDir: 'memory://' });
      await sql`CREATE TABLE zz_rows (id int PRIMARY KEY, seen boolean NOT NULL DEFAULT false)`.execute(db.kysely);
      await sql`INSERT INTO zz_rows (id) SELECT generate_series(1, 5)`.execute(db.kysely);
    });
    afterAll(() => db.close());

    it('counts the rows an UPDATE after WITH changed, not the rows it returned', async () => {
      const r = await sql`WITH few AS MATERIALIZED (SELECT id FROM zz_rows WHERE id IN (1, 2, 3) AND NOT seen)
        UPDATE zz_rows z SET seen = true FROM few WHERE z.id = few.id`.execute(db.kysely);
      expect(r.numAffectedRows).toBe(3n);
    });
  });
});
