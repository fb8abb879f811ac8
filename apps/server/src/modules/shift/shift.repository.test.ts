import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { createTestDb, DB_KINDS, type TestDb } from '../../../test/harness';
import { seedDemoServers } from '../system/seed';
import { shiftRepository } from './shift.repository';

describe.each(DB_KINDS)("the operators' overdue sweep on %s", (kind) => {
  let db: TestDb;
  let serverId: number;
  const pendingDeposit = async () => {
    const p = await createUser(db.kysely);
    const w = await createWallet(db.kysely, p.id, serverId);
    const row = await db.kysely
      .insertInto('balance_requests')
      .values({ user_id: p.id, wallet_id: w.id, gamesserver_id: serverId, type: 'input', currency_type: 1, amount: 1_000_000n, nick: 'Hero', cashier_nick: 'Kassa' })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const alerted = async () =>
    (await db.kysely.selectFrom('balance_requests').select('id').where('overdue_alerted_at', 'is not', null).orderBy('id').execute()).map((r) => r.id);

  beforeAll(async () => {
    db = await createTestDb(kind);
    await seedDemoServers(db.kysely);
    serverId = await firstServerId(db.kysely);
  });
  afterAll(() => db.close());

  it('marks at most its batch whatever the statistics say, oldest first, and the next sweep takes the rest', async () => {
    // The statistics of a table analyzed at one row: with them, the old join form rescanned its locking subquery
    // once per row of the table and could mark more than its batch (as the job queue's claim took every due job).
    const ids = [await pendingDeposit()];
    await sql`ANALYZE balance_requests`.execute(db.kysely);
    for (let i = 0; i < 5; i++) ids.push(await pendingDeposit());
    const now = new Date(Date.now() + 3_600_000);
    const sweep = () => db.kysely.transaction().execute((trx) => shiftRepository.markOverdue(trx, now, now, now, 2));

    const first = await sweep();
    expect(first.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(await alerted()).toEqual(ids.slice(0, 2));
    expect((await sweep()).map((r) => r.id)).toEqual(ids.slice(2, 4));
    expect((await sweep()).map((r) => r.id)).toEqual(ids.slice(4));
    expect(await sweep()).toEqual([]);
    expect(await alerted()).toEqual(ids);
  });
});
