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

  it('writes the same rows on the two-leg path: accounts created on first use, either currency, either leg order, nothing on a refusal', async () => {
    const owner = await createUser(db.kysely);
    const fresh = await createWallet(db.kysely, owner.id, wallet.gamesserver_id);
    const count = async (table: 'ledger_transactions' | 'ledger_entries' | 'ledger_accounts') =>
      Number((await db.kysely.selectFrom(table).select(db.kysely.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n);
    const entriesOf = (transactionId: bigint) =>
      db.kysely
        .selectFrom('ledger_entries')
        .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
        .select(['ledger_accounts.key', 'ledger_entries.amount', 'ledger_entries.balance_after'])
        .where('ledger_entries.transaction_id', '=', transactionId)
        .orderBy('ledger_entries.id')
        .execute();
    const posting = (currency: 1 | 2, amount: bigint, walletFirst: boolean) => {
      const legs = [
        { account: walletAccount(fresh.id, fresh.gamesserver_id, currency), amount },
        { account: serviceAccount('cash', fresh.gamesserver_id, currency), amount: -amount },
      ];
      return db.kysely.transaction().execute((trx) => post(trx, { kind: 'test', legs: walletFirst ? legs : legs.reverse() }));
    };
    const before = { tx: await count('ledger_transactions'), accounts: await count('ledger_accounts') };
    // First use of the wallet's account of the second currency (and of the server's cash): both are created, one transaction row.
    const first = await posting(2, 500n, false);
    expect(first.wallets).toEqual([{ walletId: fresh.id, gamesserverId: fresh.gamesserver_id, balance: 0n, balanceSecond: 500n }]);
    expect(await count('ledger_transactions')).toBe(before.tx + 1);
    expect(await count('ledger_accounts')).toBe(before.accounts + 2);
    expect(await entriesOf(first.transactionId)).toEqual([
      { key: `wallet:${fresh.id}:2`, amount: 500n, balance_after: 500n },
      { key: `cash:${fresh.gamesserver_id}:2`, amount: -500n, balance_after: null },
    ]);
    // Accounts known: the same rows, the wallet leg first whatever the order given.
    const second = await posting(2, -200n, false);
    expect(second.wallets).toEqual([{ walletId: fresh.id, gamesserverId: fresh.gamesserver_id, balance: 0n, balanceSecond: 300n }]);
    expect(await entriesOf(second.transactionId)).toEqual([
      { key: `wallet:${fresh.id}:2`, amount: -200n, balance_after: 300n },
      { key: `cash:${fresh.gamesserver_id}:2`, amount: 200n, balance_after: null },
    ]);
    // More than the wallet holds, in either currency: 409, and no transaction row or entry is left.
    const tx = await count('ledger_transactions');
    const entries = await count('ledger_entries');
    await expect(posting(2, -301n, true)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 409 });
    await fund(db.kysely, fresh, 10n);
    await expect(posting(1, -11n, true)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 409 });
    expect(await count('ledger_transactions')).toBe(tx + 1);
    expect(await count('ledger_entries')).toBe(entries + 2);
    const w = await db.kysely.selectFrom('wallets').select(['balance', 'balance_second']).where('id', '=', fresh.id).executeTakeFirstOrThrow();
    expect(w).toEqual({ balance: 10n, balance_second: 300n });
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('checks every transaction of a statement that writes entries of several', async () => {
    // Two transactions in one INSERT, the first balanced and the second not.
    const insert = () =>
      db.kysely.transaction().execute(async (trx) => {
        const [a, b] = await trx.insertInto('ledger_transactions').values([{ kind: 'forged' }, { kind: 'forged' }]).returning('id').execute();
        const acc = await trx.selectFrom('ledger_accounts').select('id').executeTakeFirstOrThrow();
        await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount)
                  VALUES (${a!.id}, ${acc.id}, 5), (${b!.id}, ${acc.id}, 7), (${a!.id}, ${acc.id}, -5), (${b!.id}, ${acc.id}, -6)`.execute(trx);
      });
    await expect(insert()).rejects.toMatchObject({ code: '23514' });
    await expect(insert()).rejects.toThrow(/ledger transaction \d+ does not balance/);
    // Balanced, the same statement passes; rolled back so that no forged rows stay.
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        const [a, b] = await trx.insertInto('ledger_transactions').values([{ kind: 'forged' }, { kind: 'forged' }]).returning('id').execute();
        const acc = await trx.selectFrom('ledger_accounts').select('id').executeTakeFirstOrThrow();
        await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount)
                  VALUES (${a!.id}, ${acc.id}, 5), (${b!.id}, ${acc.id}, 7), (${a!.id}, ${acc.id}, -5), (${b!.id}, ${acc.id}, -7)`.execute(trx);
        throw new Error('written');
      }),
    ).rejects.toThrow('written');
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

  it('keeps value on its game server and in its currency: a posting balanced only in all is refused, and the audit sees one written past it', async () => {
    const server = wallet.gamesserver_id;
    const other = (await db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', server).executeTakeFirstOrThrow()).id;
    const count = async () => Number((await db.kysely.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const attempt = (legs: Parameters<typeof post>[1]['legs']) => db.kysely.transaction().execute((trx) => post(trx, { kind: 'test_funding', legs }));
    // Two legs (the common path) and three (the general one), across currencies and across servers.
    await expect(attempt([{ account: walletAccount(wallet.id, server, 1), amount: 100n }, { account: serviceAccount('cash', server, 2), amount: -100n }])).rejects.toThrow(/does not balance/);
    await expect(attempt([{ account: walletAccount(wallet.id, server, 1), amount: 100n }, { account: serviceAccount('cash', other, 1), amount: -100n }])).rejects.toThrow(/does not balance/);
    await expect(
      attempt([
        { account: walletAccount(wallet.id, server, 1), amount: 100n },
        { account: serviceAccount('cash', server, 1), amount: -60n },
        { account: serviceAccount('fees', other, 1), amount: -40n },
      ]),
    ).rejects.toThrow(/does not balance/);
    expect(await count()).toBe(before);
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });

    // Written around ledger_post (the entries' own trigger checks only the sum): the audit names it.
    await db.kysely.transaction().execute(async (trx) => {
      const t = await trx.insertInto('ledger_transactions').values({ kind: 'forged' }).returning('id').executeTakeFirstOrThrow();
      const accounts = await trx.selectFrom('ledger_accounts').select(['id', 'currency_type']).where('gamesserver_id', '=', server).where('kind', '=', 'cash').execute();
      const [a1, a2] = [accounts.find((a) => Number(a.currency_type) === 1)!, accounts.find((a) => Number(a.currency_type) === 2)!];
      await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${t.id}, ${a1.id}, 5), (${t.id}, ${a2.id}, -5)`.execute(trx);
      const audit = await auditLedger(trx);
      expect(audit.ok).toBe(false);
      expect(audit.problems).toEqual([
        `проводка ${t.id} не сбалансирована на сервере ${server} в адене: сумма 5`,
        `проводка ${t.id} не сбалансирована на сервере ${server} в монетах эйнхасад: сумма -5`,
      ]);
      throw new Error('rolled back');
    }).catch((err: Error) => expect(err.message).toBe('rolled back'));

    // A lone entry: the count in words agrees with its number, «1 запись».
    await db.kysely.transaction().execute(async (trx) => {
      const t = await trx.insertInto('ledger_transactions').values({ kind: 'forged' }).returning('id').executeTakeFirstOrThrow();
      const cash = await trx.selectFrom('ledger_accounts').select('id').where('gamesserver_id', '=', server).where('kind', '=', 'cash').where('currency_type', '=', 1).executeTakeFirstOrThrow();
      // Past the entries' own trigger, which refuses an unbalanced statement: the audit is what notices it.
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${t.id}, ${cash.id}, 5)`.execute(trx);
      await sql`SET LOCAL session_replication_role = origin`.execute(trx);
      expect((await auditLedger(trx)).problems).toContain(`проводка ${t.id} имеет 1 запись (нужно не меньше двух)`);
      throw new Error('rolled back');
    }).catch((err: Error) => expect(err.message).toBe('rolled back'));
  });

  it("refuses a wallet leg that names another game server than the wallet's: value cannot change servers through it", async () => {
    const server = wallet.gamesserver_id;
    const other = (await db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', server).executeTakeFirstOrThrow()).id;
    await fund(db.kysely, wallet, 1_000n);
    const count = async () => Number((await db.kysely.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const attempt = (legs: Parameters<typeof post>[1]['legs']) => db.kysely.transaction().execute((trx) => post(trx, { kind: 'test_funding', legs }));
    // Balanced on the server named (another one's cash), both ways and on both paths.
    for (const amount of [500n, -500n]) {
      await expect(attempt([{ account: walletAccount(wallet.id, other, 1), amount }, { account: serviceAccount('cash', other, 1), amount: -amount }])).rejects.toMatchObject({
        code: '23514',
      });
      await expect(
        attempt([
          { account: walletAccount(wallet.id, other, 1), amount },
          { account: serviceAccount('cash', other, 1), amount: -amount / 2n },
          { account: serviceAccount('fees', other, 1), amount: -amount / 2n },
        ]),
      ).rejects.toMatchObject({ code: '23514' });
    }
    expect(await count()).toBe(before);
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });
  });

  it('the audit sees a decision applied twice, which balances on every account it touches', async () => {
    const server = wallet.gamesserver_id;
    const userId = (await db.kysely.selectFrom('wallets').select('user_id').where('id', '=', wallet.id).executeTakeFirstOrThrow()).user_id;
    const request = await db.kysely
      .insertInto('balance_requests')
      .values({ user_id: userId, wallet_id: wallet.id, gamesserver_id: server, type: 'input', currency_type: 1, amount: 700n, nick: 'Hero', cashier_nick: 'Кассир', status: 'completed', processed_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const credit = () =>
      db.kysely.transaction().execute((trx) =>
        post(trx, {
          kind: 'deposit',
          refType: 'balance_request',
          refId: request.id,
          legs: [
            { account: serviceAccount('cash', server, 1), amount: -700n },
            { account: walletAccount(wallet.id, server, 1), amount: 700n },
          ],
        }),
      );
    await credit();
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });
    await db.kysely.transaction().execute(async (trx) => {
      await post(trx, {
        kind: 'deposit',
        refType: 'balance_request',
        refId: request.id,
        legs: [
          { account: serviceAccount('cash', server, 1), amount: -700n },
          { account: walletAccount(wallet.id, server, 1), amount: 700n },
        ],
      });
      const audit = await auditLedger(trx);
      expect(audit.ok).toBe(false);
      expect(audit.problems).toEqual([`заявка ${request.id}: по журналу кошелёк 1400, удержание 0, касса -1400 — не по её статусу`]);
      throw new Error('rolled back');
    }).catch((err: Error) => expect(err.message).toBe('rolled back'));
    expect(await auditLedger(db.kysely)).toMatchObject({ ok: true });
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
    expect(audit.problems.join('\n')).toMatch(new RegExp(`кошелёк ${wallet.id} \\(адена\\): баланс`));
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
