import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, DB_KINDS, type TestDb } from '../../../test/harness';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { seedDemoServers } from '../system/seed';
import { auditLedger, post, serviceAccount, walletAccount } from './ledger.service';

describe.each(DB_KINDS)('ledger on %s', (kind) => {
  let db: TestDb;
  let wallet: { id: number; gamesserver_id: number };
  beforeAll(async () => {
    db = await createTestDb(kind);
    await seedDemoServers(db.kysely);
    const user = await createUser(db.kysely);
    wallet = await createWallet(db.kysely, user.id, await firstServerId(db.kysely));
  });
  afterAll(() => db.close());

  it('credits a wallet and records the balance after each entry', async () => {
    const r = await fund(db.kysely, wallet, 1_000n);
    expect(r.wallets).toEqual([{ walletId: wallet.id, gamesserverId: wallet.gamesserver_id, balance: 1_000n, balanceSecond: 0n }]);
    const entries = await db.kysely.selectFrom('ledger_entries').select(['amount', 'balance_after']).orderBy('id').execute();
    expect(entries).toEqual([
      { amount: 1_000n, balance_after: 1_000n },
      { amount: -1_000n, balance_after: null },
    ]);
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('refuses to take more than the wallet holds, and moves nothing', async () => {
    await expect(
      db.kysely.transaction().execute((trx) =>
        post(trx, {
          kind: 'test',
          legs: [
            { account: walletAccount(wallet.id, wallet.gamesserver_id, 1), amount: -1_001n },
            { account: serviceAccount('cash', wallet.gamesserver_id, 1), amount: 1_001n },
          ],
        }),
      ),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 409 });
    const w = await db.kysely.selectFrom('wallets').select('balance').where('id', '=', wallet.id).executeTakeFirstOrThrow();
    expect(w.balance).toBe(1_000n);
    expect((await auditLedger(db.kysely)).ok).toBe(true);
  });

  it('takes legs in any order and sums the legs of one account into one entry', async () => {
    const before = await db.kysely.selectFrom('ledger_entries').select(db.kysely.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow();
    const r = await db.kysely.transaction().execute((trx) =>
      post(trx, {
        kind: 'test',
        legs: [
          { account: serviceAccount('cash', wallet.gamesserver_id, 1), amount: 30n },
          { account: walletAccount(wallet.id, wallet.gamesserver_id, 1), amount: -10n },
          { account: serviceAccount('fees', wallet.gamesserver_id, 1), amount: 0n },
          { account: walletAccount(wallet.id, wallet.gamesserver_id, 1), amount: -20n },
        ],
      }),
    );
    expect(r.wallets).toEqual([{ walletId: wallet.id, gamesserverId: wallet.gamesserver_id, balance: 970n, balanceSecond: 0n }]);
    const entries = await db.kysely
      .selectFrom('ledger_entries')
      .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
      .select(['ledger_accounts.key', 'ledger_entries.amount', 'ledger_entries.balance_after'])
      .where('ledger_entries.transaction_id', '=', r.transactionId)
      .orderBy('ledger_entries.id')
      .execute();
    expect(entries).toEqual([
      { key: `wallet:${wallet.id}:1`, amount: -30n, balance_after: 970n },
      { key: `cash:${wallet.gamesserver_id}:1`, amount: 30n, balance_after: null },
    ]);
    expect(Number((await db.kysely.selectFrom('ledger_entries').select(db.kysely.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n)).toBe(Number(before.n) + 2);
    await fund(db.kysely, wallet, 30n);
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });
  });

  it('has the database refuse an unbalanced transaction and any edit of history', async () => {
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        const t = await trx.insertInto('ledger_transactions').values({ kind: 'forged' }).returning('id').executeTakeFirstOrThrow();
        const acc = await trx.selectFrom('ledger_accounts').select('id').executeTakeFirstOrThrow();
        await trx.insertInto('ledger_entries').values({ transaction_id: t.id, account_id: acc.id, amount: 5n, balance_after: null }).execute();
      }),
    ).rejects.toThrow(/does not balance/);
    await expect(sql`UPDATE ledger_entries SET created_at = now()`.execute(db.kysely)).rejects.toThrow(/append-only/);
    await expect(sql`UPDATE wallets SET balance = -1 WHERE id = ${wallet.id}`.execute(db.kysely)).rejects.toThrow(/check/i);
  });

  it('refuses references to rows that do not exist, and the removal of any row money refers to', async () => {
    const other = await createUser(db.kysely);
    const otherServer = (await db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', wallet.gamesserver_id).executeTakeFirstOrThrow()).id;
    const request = (userId: number, walletId: number, serverId: number) =>
      sql`INSERT INTO balance_requests (user_id, wallet_id, gamesserver_id, type, currency_type, amount, nick, cashier_nick)
          VALUES (${userId}, ${walletId}, ${serverId}, 'input', 1, 1, 'Hero', 'Cashier')`.execute(db.kysely);
    const owner = (await db.kysely.selectFrom('wallets').select('user_id').where('id', '=', wallet.id).executeTakeFirstOrThrow()).user_id;
    // The wallet must exist and be the named user's on the named server.
    await expect(request(owner, 999_999, wallet.gamesserver_id)).rejects.toMatchObject({ code: '23503' });
    await expect(request(other.id, wallet.id, wallet.gamesserver_id)).rejects.toMatchObject({ code: '23503' });
    await expect(request(owner, wallet.id, otherServer)).rejects.toMatchObject({ code: '23503' });
    await request(owner, wallet.id, wallet.gamesserver_id);
    await expect(
      sql`INSERT INTO ledger_transactions (kind, actor_user_id) VALUES ('forged', 999999)`.execute(db.kysely),
    ).rejects.toMatchObject({ code: '23503' });
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        const t = await trx.insertInto('ledger_transactions').values({ kind: 'forged' }).returning('id').executeTakeFirstOrThrow();
        const acc = await trx.selectFrom('ledger_accounts').select('id').executeTakeFirstOrThrow();
        await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${t.id}, ${acc.id}, 5), (${t.id}, 999999, -5)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23503' });
    // Entries of a transaction that does not exist (checked by the entries' trigger, decision record 0027).
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        const acc = await trx.selectFrom('ledger_accounts').select('id').executeTakeFirstOrThrow();
        await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (999999999, ${acc.id}, 5), (999999999, ${acc.id}, -5)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23503' });
    // A second statement adding an unbalanced leg to a transaction whose first legs balanced.
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        const t = await trx.insertInto('ledger_transactions').values({ kind: 'forged' }).returning('id').executeTakeFirstOrThrow();
        const acc = await trx.selectFrom('ledger_accounts').select('id').executeTakeFirstOrThrow();
        await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${t.id}, ${acc.id}, 5), (${t.id}, ${acc.id}, -5)`.execute(trx);
        await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${t.id}, ${acc.id}, 7)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23514' });
    for (const statement of [
      sql`DELETE FROM users WHERE id = ${other.id}`,
      sql`UPDATE users SET id = id + 100000 WHERE id = ${other.id}`,
      sql`DELETE FROM gamesservers WHERE id = ${otherServer}`,
      sql`DELETE FROM wallets WHERE id = ${wallet.id}`,
      sql`UPDATE wallets SET user_id = ${other.id} WHERE id = ${wallet.id}`,
      sql`DELETE FROM ledger_accounts`,
      sql`TRUNCATE ledger_accounts CASCADE`,
      sql`DELETE FROM ledger_transactions`,
      sql`UPDATE ledger_transactions SET id = id + 1000000`,
      sql`TRUNCATE ledger_transactions CASCADE`,
    ]) {
      await expect(statement.execute(db.kysely)).rejects.toThrow(/never deleted nor renumbered/);
    }
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });
  });

  it('notices a cached balance that disagrees with the entries', async () => {
    await sql`UPDATE wallets SET balance = balance + 1 WHERE id = ${wallet.id}`.execute(db.kysely);
    const audit = await auditLedger(db.kysely);
    expect(audit.ok).toBe(false);
    expect(audit.problems.join('\n')).toMatch(new RegExp(`кошелёк ${wallet.id}, валюта 1`));
    await sql`UPDATE wallets SET balance = balance - 1 WHERE id = ${wallet.id}`.execute(db.kysely);
  });
});

describe('ledger under concurrency on postgres', () => {
  it('lets parallel debits of one balance succeed exactly as far as the balance allows', async () => {
    const db = await createTestDb('postgres', 40);
    try {
      await seedDemoServers(db.kysely);
      const user = await createUser(db.kysely);
      const wallet = await createWallet(db.kysely, user.id, await firstServerId(db.kysely));
      await fund(db.kysely, wallet, 55n);
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, () =>
          db.kysely.transaction().execute((trx) =>
            post(trx, {
              kind: 'test_debit',
              legs: [
                { account: walletAccount(wallet.id, wallet.gamesserver_id, 1), amount: -10n },
                { account: serviceAccount('cash', wallet.gamesserver_id, 1), amount: 10n },
              ],
            }),
          ),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      const w = await db.kysely.selectFrom('wallets').select('balance').where('id', '=', wallet.id).executeTakeFirstOrThrow();
      expect(w.balance).toBe(5n);
      expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });
    } finally {
      await db.close();
    }
  });
});
