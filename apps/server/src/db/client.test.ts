import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../test/harness';

// Statements are prepared per connection on PostgreSQL (client.ts). Another process migrating the
// database under a running server must not leave that server failing on its prepared SELECT *.
describe('prepared statements on PostgreSQL', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
    await sql`CREATE TABLE probe (id integer PRIMARY KEY, a text)`.execute(db.kysely);
    await sql`INSERT INTO probe VALUES (1, 'x')`.execute(db.kysely);
  });
  afterAll(() => db.close());

  const read = () => sql<Record<string, unknown>>`SELECT * FROM probe WHERE id = ${1}`.execute(db.kysely).then((r) => r.rows[0]);

  it('answers with the new shape after a column is added under it, outside a transaction at once', async () => {
    expect(await read()).toEqual({ id: 1, a: 'x' });
    expect(await read()).toEqual({ id: 1, a: 'x' }); // prepared on the one connection by now
    await sql`ALTER TABLE probe ADD COLUMN b text`.execute(db.kysely);
    expect(await read()).toEqual({ id: 1, a: 'x', b: null });
  });

  it('inside a transaction fails that transaction once, and works from then on', async () => {
    const inTx = () =>
      db.kysely.transaction().execute((trx) => sql<Record<string, unknown>>`SELECT * FROM probe WHERE id = ${2} OR id = ${1}`.execute(trx).then((r) => r.rows[0]));
    expect(await inTx()).toMatchObject({ id: 1 });
    await sql`ALTER TABLE probe ADD COLUMN c text`.execute(db.kysely);
    await expect(inTx()).rejects.toThrow(/cached plan/);
    expect(await inTx()).toEqual({ id: 1, a: 'x', b: null, c: null });
  });
});
