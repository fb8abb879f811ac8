import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';

const KK = 1_000_000;

describe.each(DB_KINDS)("the operators' queue and dashboard on %s", (kind) => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers = admin.auth) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  let serverId: number;
  /** A player with a nick on the first server and `adena` on their wallet. */
  const playerWith = async (adena = 0n) => {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    if (adena) await fund(t.db.kysely, w, adena, 1);
    return p;
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await createUser(t.db.kysely, { admin: true, name: 'Оператор' });
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  describe('the operators queue', () => {
    it('puts VIP players first, then the oldest, and filters by status, type, server and currency', async () => {
      const plain = await playerWith(10n * BigInt(KK));
      const vip = await playerWith(10n * BigInt(KK));
      await t.db.kysely.updateTable('users').set({ vip_until: new Date(Date.now() + 86_400_000) }).where('id', '=', vip.id).execute();
      const first = (await call('POST', '/api/down_balance_user/', { gamesserver_id: serverId, amount: KK }, plain.auth)).json().success;
      const second = (await call('POST', '/api/down_balance_user/', { gamesserver_id: serverId, amount: KK }, vip.auth)).json().success;
      const q = (await call('GET', `/api/admin/requests?status=pending&type=output&gamesserver_id=${serverId}&currency_type=1&per_page=100`)).json();
      const order = q.data.map((r: { id: number }) => r.id).filter((id: number) => id === first.id || id === second.id);
      expect(order).toEqual([second.id, first.id]);
      expect(q.data.find((r: { id: number }) => r.id === second.id).user).toMatchObject({ id: vip.id, vip: true });
      expect(q.data.every((r: { status: string; type: string }) => r.status === 'pending' && r.type === 'output')).toBe(true);
      const coins = (await call('GET', '/api/admin/requests?status=pending&currency_type=2')).json();
      expect(coins.data.every((r: { currency_type: number }) => r.currency_type === 2)).toBe(true);
      expect((await call('GET', '/api/admin/requests?status=nope')).statusCode).toBe(422);
      // A VIP's withdrawals come first (PRODUCT.md section 2), not their deposits.
      const vipDeposit = (await call('POST', '/api/up_balance_user/', { gamesserver_id: serverId, amount: KK }, vip.auth)).json().success;
      const all = (await call('GET', `/api/admin/requests?status=pending&gamesserver_id=${serverId}&per_page=100`)).json();
      const mixed = all.data.map((r: { id: number }) => r.id).filter((id: number) => [first.id, second.id, vipDeposit.id].includes(id));
      expect(mixed).toEqual([second.id, first.id, vipDeposit.id]);
      expect((await call('POST', '/api/admin/requests/99999999/complete', {})).statusCode).toBe(404);
    });
  });

  describe('a blocked player', () => {
    it("has the flag on the queue; their withdrawal is only rejected (back to the wallet), their deposit still credited", async () => {
      const p = await playerWith(10n * BigInt(KK));
      const out = (await call('POST', '/api/down_balance_user/', { gamesserver_id: serverId, amount: 2 * KK }, p.auth)).json().success;
      const dep = (await call('POST', '/api/up_balance_user/', { gamesserver_id: serverId, amount: KK }, p.auth)).json().success;
      expect((await call('POST', `/api/admin/users/${p.id}/block`, { reason: 'аккаунт угнан' })).statusCode).toBe(200);
      const q = (await call('GET', `/api/admin/requests?status=pending&gamesserver_id=${serverId}&per_page=100`)).json();
      const listed = q.data.filter((r: { user: { id: number } }) => r.user.id === p.id);
      expect(listed).toHaveLength(2);
      expect(listed.every((r: { user: { blocked: boolean } }) => r.user.blocked)).toBe(true);

      const paid = await call('POST', `/api/admin/requests/${out.id}/complete`, {});
      expect(paid.statusCode).toBe(409);
      expect(paid.json().message).toBe('Игрок заблокирован: его вывод можно только отклонить (сумма вернётся на кошелёк)');
      expect((await call('POST', `/api/admin/requests/${out.id}/reject`, { reason: 'Аккаунт заблокирован' })).statusCode).toBe(200);
      expect((await call('POST', `/api/admin/requests/${dep.id}/complete`, {})).statusCode).toBe(200);
      const wallet = await t.db.kysely.selectFrom('wallets').select('balance').where('user_id', '=', p.id).where('gamesserver_id', '=', serverId).executeTakeFirstOrThrow();
      expect(wallet.balance).toBe(11n * BigInt(KK));
      expect((await call('GET', '/api/admin/ledger/audit')).json()).toMatchObject({ ok: true });
    });
  });

  describe('a blocked player, with locks', () => {
    // PGlite runs one transaction at a time: the block and the decision cannot interleave there.
    it.runIf(kind === 'postgres')('completing a withdrawal while an operator is being blocked keeps the lock order (users, then requests): no deadlock', async () => {
      const db = t.db.kysely;
      const [owner, claimer, decider] = [await createUser(db, { admin: true }), await createUser(db, { admin: true }), await createUser(db, { admin: true })];
      const w = await createWallet(db, owner.id, serverId, 'Hero');
      await fund(db, w, 10n * BigInt(KK), 1);
      const r = (await sql<{ id: number }>`SELECT id FROM request_open(${owner.id}, ${serverId}, 'output', 1::smallint, ${KK}::bigint)`.execute(db)).rows[0]!;
      expect((await call('POST', `/api/admin/requests/${r.id}/claim`, {}, claimer.auth)).statusCode).toBe(200);
      // The claim lapsed: anyone may decide it, and the claimer's block releases it.
      await db.updateTable('balance_requests').set({ claimed_at: new Date(Date.now() - 86_400_000) }).where('id', '=', r.id).execute();
      const held = await holdLocks(db, (trx) => sql`SELECT 1 FROM users WHERE id = ${claimer.id} FOR UPDATE`.execute(trx));
      // The request's owner, an operator too, blocks the claimer: their row held, waiting for the claimer's.
      const block = call('POST', `/api/admin/users/${claimer.id}/block`, { reason: 'угнан' }, owner.auth);
      await expect.poll(() => lockWaits(db, '%users%')).toBeGreaterThan(0);
      const complete = call('POST', `/api/admin/requests/${r.id}/complete`, {}, decider.auth);
      await expect.poll(() => lockWaits(db)).toBeGreaterThan(1);
      await held.release();
      const [b, c] = await Promise.all([block, complete]);
      expect([b.statusCode, c.statusCode]).toEqual([200, 200]);
      expect((await call('GET', '/api/admin/ledger/audit')).json()).toMatchObject({ ok: true });
    });
  });

  describe('a nick another player gave too', () => {
    it('flags the request (any letter case, same server only) on the queue and on the decision', async () => {
      const otherServer = (await t.db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', serverId).executeTakeFirstOrThrow()).id;
      const nickOf = (n: string) => `Nick${n}${Date.now() % 100_000}`;
      const shared = nickOf('S');
      const alone = nickOf('A');
      const claimant = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, claimant.id, serverId, shared);
      const other = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, other.id, serverId, shared.toUpperCase());
      const elsewhere = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, elsewhere.id, otherServer, alone);
      const single = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, single.id, serverId, alone);
      const deposit = async (who: { auth: { authorization: string } }) =>
        (await call('POST', '/api/up_balance_user/', { gamesserver_id: serverId, amount: KK }, who.auth)).json().success.id as number;
      const flagged = await deposit(claimant);
      const clear = await deposit(single);
      const q = (await call('GET', '/api/admin/requests?status=pending&per_page=100')).json();
      const of = (id: number) => q.data.find((r: { id: number }) => r.id === id);
      expect(of(flagged)).toMatchObject({ nick: shared, nick_shared: true });
      expect(of(clear)).toMatchObject({ nick: alone, nick_shared: false });
      const done = await call('POST', `/api/admin/requests/${flagged}/complete`, {});
      expect(done.json().success).toMatchObject({ id: flagged, nick_shared: true });
    });

    it('flags a Cyrillic nick another player gave in another letter case, whatever the cluster’s locale (the test cluster runs C)', async () => {
      const n = Date.now() % 100_000;
      const claimant = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, claimant.id, serverId, `Ёжик${n}`);
      const other = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, other.id, serverId, `ЁЖИК${n}`);
      const single = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, single.id, serverId, `Ежик${n}`);
      const deposit = async (who: { auth: { authorization: string } }) =>
        (await call('POST', '/api/up_balance_user/', { gamesserver_id: serverId, amount: KK }, who.auth)).json().success.id as number;
      const flagged = await deposit(claimant);
      // Ё and Е are different letters: not the same nick.
      const clear = await deposit(single);
      const q = (await call('GET', '/api/admin/requests?status=pending&per_page=100')).json();
      const of = (id: number) => q.data.find((r: { id: number }) => r.id === id);
      expect(of(flagged)).toMatchObject({ nick: `Ёжик${n}`, nick_shared: true });
      expect(of(clear)).toMatchObject({ nick: `Ежик${n}`, nick_shared: false });
    });
  });

  describe('dashboard', () => {
    it('shows pending requests per server, currency and direction, the oldest waiting, and the 24-hour median', async () => {
      await t.db.kysely.deleteFrom('balance_requests').execute();
      const server = await firstServerId(t.db.kysely);
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server);
      const ago = (min: number) => new Date(Date.now() - min * 60_000);
      const base = { user_id: p.id, wallet_id: w.id, gamesserver_id: server, nick: 'Hero', cashier_nick: 'Kassa' };
      await t.db.kysely
        .insertInto('balance_requests')
        .values([
          { ...base, type: 'input', currency_type: 1, amount: 5n * BigInt(KK), created_at: ago(90) },
          { ...base, type: 'input', currency_type: 1, amount: 7n * BigInt(KK), created_at: ago(10) },
          { ...base, type: 'input', currency_type: 2, amount: 30n, created_at: ago(5) },
          { ...base, type: 'input', currency_type: 1, amount: 1n, status: 'completed', created_at: ago(40), processed_at: ago(30) },
          { ...base, type: 'input', currency_type: 1, amount: 1n, status: 'rejected', created_at: ago(60), processed_at: ago(30) },
          { ...base, type: 'input', currency_type: 1, amount: 1n, status: 'completed', created_at: ago(100), processed_at: ago(50) },
        ])
        .execute();
      const res = await call('GET', '/api/admin/dashboard');
      expect(res.statusCode).toBe(200);
      const d = res.json();
      expect(d.pending).toEqual([
        expect.objectContaining({ gamesserver_id: server, currency_type: 1, type: 'input', count: 2, sum: 12 * KK }),
        expect.objectContaining({ gamesserver_id: server, currency_type: 2, type: 'input', count: 1, sum: 30 }),
      ]);
      expect(d.oldest).toMatchObject({ gamesserver_id: server, amount: 5 * KK, type: 'input' });
      expect(d.oldest.waiting_minutes).toBeGreaterThanOrEqual(89);
      // Took 10, 30 and 50 minutes: the median is 30.
      expect(d.medians.find((m: { gamesserver_id: number }) => m.gamesserver_id === server)).toMatchObject({ minutes: 30, processed: 3 });
      expect(d.median_all_minutes).toBe(30);
      expect(d.processed_24h).toBe(3);
    });
  });
});
