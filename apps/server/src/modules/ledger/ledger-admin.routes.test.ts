import type { AdminGamesserver } from '@adena/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger, post, serviceAccount, walletAccount } from './ledger.service';

describe.each(DB_KINDS)("the ledger's admin views on %s", (kind) => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers = admin.auth) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await createUser(t.db.kysely, { admin: true, name: 'Оператор' });
  });
  afterAll(() => t.close());

  describe('ledger', () => {
    it('totals per server and currency: what players hold, what is owed, and the cash that balances it', async () => {
      const server = (await call('GET', '/api/admin/gamesservers')).json().find((s: AdminGamesserver) => s.name === 'E-Global x1');
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server.id);
      await fund(t.db.kysely, w, 3_000n);
      await fund(t.db.kysely, w, 40n, 2);
      const res = await call('GET', '/api/admin/ledger/totals');
      expect(res.statusCode).toBe(200);
      const rows = res.json().data.filter((r: { gamesserver_id: number }) => r.gamesserver_id === server.id);
      expect(rows).toEqual([
        expect.objectContaining({ currency_type: 1, wallets: 3_000, payout: 0, escrow: 0, fees: 0, cash: -3_000, owed: 3_000 }),
        expect.objectContaining({ currency_type: 2, wallets: 40, cash: -40, owed: 40 }),
      ]);
      expect(rows[0].accounts.cash).toEqual(expect.any(Number));
      expect(rows[0].accounts.escrow).toBeNull();
      expect((await auditLedger(t.db.kysely)).ok).toBe(true);
    });

    // PGlite runs one transaction at a time: the held lock would hold the totals for good.
    it.skipIf(kind === 'pglite')('totals read while a movement commits balance: every figure is of one moment', async () => {
      const server = (await call('GET', '/api/admin/gamesservers')).json().find((s: AdminGamesserver) => s.name === 'E-Global x1');
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server.id);
      // A deposit credited while the totals are being read: it commits after the ledger's entries were
      // read and before the wallets are (the wallets' table lock holds that read until then).
      const moving = await holdLocks(t.db.kysely, async (trx) => {
        await sql`LOCK TABLE wallets IN ACCESS EXCLUSIVE MODE`.execute(trx);
        await post(trx, {
          kind: 'test_funding',
          legs: [
            { account: walletAccount(w.id, w.gamesserver_id, 1), amount: 5_000n },
            { account: serviceAccount('cash', w.gamesserver_id, 1), amount: -5_000n },
          ],
        });
      });
      const reading = call('GET', '/api/admin/ledger/totals');
      while ((await lockWaits(t.db.kysely, '%FROM wallets%')) === 0) await new Promise((r) => setTimeout(r, 20));
      await moving.release();
      const res = await reading;
      expect(res.statusCode).toBe(200);
      type Row = { gamesserver_id: number; gamesserver: string; currency_type: number; owed: number; fees: number; cash: number };
      const data: Row[] = res.json().data;
      // The deposit's server is there, in both currencies (an empty list would balance too).
      expect(data.filter((r) => r.gamesserver_id === server.id).map((r) => r.currency_type)).toEqual([1, 2]);
      for (const r of data) expect(r.owed + r.fees + r.cash, `${r.gamesserver} ${r.currency_type}`).toBe(0);
      // The deposit committed after the reading's moment (it waited on the wallets' lock): read again, its server shows it.
      const funded = (rows: Row[]) => rows.find((r) => r.gamesserver_id === server.id && r.currency_type === 1)!;
      const after = (await call('GET', '/api/admin/ledger/totals')).json().data as Row[];
      expect(funded(after).owed).toBe(funded(data).owed + 5_000);
      expect(funded(after).owed + funded(after).fees + funded(after).cash).toBe(0);
    });

    it('totals, a service account and its entries past 2^53 − 1 summed over many wallets: the largest figure the API carries, never a 500', async () => {
      const model = await t.db.kysely.selectFrom('gamesservers').selectAll().where('id', '=', await firstServerId(t.db.kysely)).executeTakeFirstOrThrow();
      const server = await t.db.kysely
        .insertInto('gamesservers')
        .values({ name: 'Огромный x100000', active: false, sort_order: 998, cashier_nick: model.cashier_nick, limits: JSON.stringify(model.limits) as never, min_nominal: model.min_nominal })
        .returning('id')
        .executeTakeFirstOrThrow();
      const MAX = BigInt(Number.MAX_SAFE_INTEGER);
      // Each wallet holds the most one may; the cash account that paid them has given out twice that.
      for (const _ of [1, 2]) await fund(t.db.kysely, await createWallet(t.db.kysely, (await createUser(t.db.kysely)).id, server.id), MAX);
      // Two pending deposits of the most one may ask for, waiting on the operators' dashboard.
      const [a, b] = await Promise.all([createUser(t.db.kysely), createUser(t.db.kysely)]);
      for (const p of [a, b]) {
        const w = await createWallet(t.db.kysely, p.id, server.id);
        await t.db.kysely
          .insertInto('balance_requests')
          .values({ user_id: p.id, wallet_id: w.id, gamesserver_id: server.id, type: 'input', currency_type: 1, amount: MAX, nick: 'Hero', cashier_nick: 'Kassa' })
          .execute();
      }
      // 2 × MAX is more than a JSON number carries exactly: the figure stops at MAX.
      const twice = Number(MAX);
      const totals = await call('GET', '/api/admin/ledger/totals');
      expect(totals.statusCode).toBe(200);
      const row = totals.json().data.find((r: { gamesserver_id: number; currency_type: number }) => r.gamesserver_id === server.id && r.currency_type === 1);
      expect(row).toMatchObject({ wallets: twice, cash: -twice, owed: twice });
      const entries = await call('GET', `/api/admin/ledger/accounts/${row.accounts.cash}/entries`);
      expect(entries.statusCode).toBe(200);
      expect(entries.json().account.balance).toBe(-twice);
      expect(entries.json().data.map((e: { amount: number }) => e.amount)).toEqual([-Number(MAX), -Number(MAX)]);
      const dashboard = await call('GET', '/api/admin/dashboard');
      expect(dashboard.statusCode).toBe(200);
      expect(dashboard.json().pending.find((p: { gamesserver_id: number }) => p.gamesserver_id === server.id)).toMatchObject({ count: 2, sum: twice });
      expect((await auditLedger(t.db.kysely)).ok).toBe(true);
    });

    it("pages any account's entries, newest first, with its balance", async () => {
      const server = await firstServerId(t.db.kysely);
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server);
      for (const amount of [100n, 200n, 300n]) await fund(t.db.kysely, w, amount);
      const details = (await call('GET', `/api/admin/users/${p.id}`)).json();
      const accountId = details.wallets[0].accounts['1'];
      const page1 = (await call('GET', `/api/admin/ledger/accounts/${accountId}/entries?per_page=2`)).json();
      expect(page1.account).toMatchObject({ kind: 'wallet', user_id: p.id, wallet_id: w.id, balance: 600, currency_type: 1 });
      expect(page1.total).toBe(3);
      expect(page1.data.map((e: { amount: number; balance_after: number }) => [e.amount, e.balance_after])).toEqual([
        [300, 600],
        [200, 300],
      ]);
      const page2 = (await call('GET', `/api/admin/ledger/accounts/${accountId}/entries?per_page=2&page=2`)).json();
      expect(page2.data.map((e: { amount: number }) => e.amount)).toEqual([100]);
      expect((await call('GET', '/api/admin/ledger/accounts/999999/entries')).statusCode).toBe(404);
    });

    it('gives the ledger audit verdict', async () => {
      const res = await call('GET', '/api/admin/ledger/audit');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ ok: true, problems: [] });
    });

    it.runIf(kind === 'postgres')('runs one audit at a time per process: a burst of operators holds one pool connection, and each gets the verdict', async () => {
      // Another session locks the ledger, so the audit's first read waits on it in PostgreSQL.
      const lock = await holdLocks(t.db.kysely, (trx) => sql`LOCK TABLE ledger_entries IN ACCESS EXCLUSIVE MODE`.execute(trx));
      const audits = Array.from({ length: 4 }, () => call('GET', '/api/admin/ledger/audit'));
      try {
        await expect.poll(() => lockWaits(t.db.kysely, '%ledger_entries%')).toBe(1);
        await new Promise((r) => setTimeout(r, 300));
        expect(await lockWaits(t.db.kysely, '%ledger_entries%')).toBe(1);
        // The rest of the admin area still answers meanwhile.
        expect((await call('GET', '/api/admin/gamesservers')).statusCode).toBe(200);
      } finally {
        await lock.release();
      }
      for (const res of await Promise.all(audits)) {
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ ok: true, problems: [] });
      }
    });
  });
});

describe.each(DB_KINDS)("the operators' figures past 2^63 on %s", (kind) => {
  it('totals, the cash account and the dashboard still answer, their sums held at the largest amount the contract carries', async () => {
    const t = await createTestApp(kind);
    try {
      const admin = await createUser(t.db.kysely, { admin: true });
      const serverId = await firstServerId(t.db.kysely);
      const MAX = BigInt(Number.MAX_SAFE_INTEGER);
      // 1025 wallets at the largest balance a wallet may hold: together past 2^63 − 1, what a bigint holds.
      const N = 1025;
      const { rows: users } = await sql<{ id: number }>`
        INSERT INTO users (email, name) SELECT 'rich' || i || '@example.com', 'Богач ' || i FROM generate_series(1, ${N}::int) i RETURNING id`.execute(t.db.kysely);
      const wallets = await t.db.kysely
        .insertInto('wallets')
        .values(users.map((u) => ({ user_id: u.id, gamesserver_id: serverId, nick: `Rich${u.id}` })))
        .returningAll()
        .execute();
      for (const w of wallets) await fund(t.db.kysely, w, MAX);
      // As many pending deposits of the largest amount: they move nothing until completed, so the ledger stays whole.
      await t.db.kysely
        .insertInto('balance_requests')
        .values(wallets.map((w) => ({ user_id: w.user_id, wallet_id: w.id, gamesserver_id: serverId, type: 'input' as const, currency_type: 1 as const, amount: MAX, nick: w.nick!, cashier_nick: 'Kassa' })))
        .execute();
      const get = (url: string) => t.app.inject({ method: 'GET', url, headers: admin.auth });
      const top = Number.MAX_SAFE_INTEGER;

      const totals = await get('/api/admin/ledger/totals');
      expect(totals.statusCode).toBe(200);
      const row = totals.json().data.find((r: { gamesserver_id: number; currency_type: number }) => r.gamesserver_id === serverId && r.currency_type === 1);
      expect(row).toMatchObject({ wallets: top, payout: 0, escrow: 0, cash: -top, owed: top });

      const cash = await get(`/api/admin/ledger/accounts/${row.accounts.cash}/entries?page=1&per_page=10`);
      expect(cash.statusCode).toBe(200);
      expect(cash.json().account).toMatchObject({ kind: 'cash', balance: -top });
      expect(cash.json().total).toBe(N);
      expect(cash.json().data[0]).toMatchObject({ amount: -top });

      const dashboard = await get('/api/admin/dashboard');
      expect(dashboard.statusCode).toBe(200);
      expect(dashboard.json().pending).toEqual([expect.objectContaining({ gamesserver_id: serverId, currency_type: 1, type: 'input', count: N, sum: top })]);
      expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
    } finally {
      await t.close();
    }
  });
});
