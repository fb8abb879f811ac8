import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { sql } from 'kysely';
import { auditLedger } from '../ledger/ledger.service';
import { vipRepository } from './vip.repository';

const KK = 1_000_000;
const price = (nominal: number, bp: number) => nominal + Number(feeOf(BigInt(nominal), bp));

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('VIP on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
  let sellerWallet: { id: number; gamesserver_id: number };
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Player | null, payload?: unknown, ip?: string) =>
    t.app.inject({
      method,
      url,
      headers: who ? who.auth : {},
      ...(ip ? { remoteAddress: ip } : {}),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const balanceOf = async (userId: number, currency: 1 | 2 = 1) => {
    const w = await t.db.kysely.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('gamesserver_id', '=', serverId).executeTakeFirst();
    return w ? Number(currency === 1 ? w.balance : w.balance_second) : 0;
  };
  const issue = (who: Player, walletId: number, nominal: number, extra: object = {}) =>
    call('POST', '/api/show_code/', who, { gamesserver_id: serverId, nominal, wallet_id: walletId, ...extra });
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    seller = await createUser(t.db.kysely);
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, sellerWallet, 1000n * BigInt(KK));
  });
  afterAll(() => t.close());

  describe('VIP', () => {
    it.runIf(kind === 'postgres')('an operator completing a withdrawal while its player buys VIP with coins of that wallet: both go through (no deadlock, no 503), the ledger balanced', async () => {
      const admin = await createUser(t.db.kysely, { admin: true, name: 'Оператор' });
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId, 'Buyer');
      await fund(t.db.kysely, w, 1000n, 2);
      await fund(t.db.kysely, w, 100n * BigInt(KK), 1);
      const out = await call('POST', '/api/down_balance_user/', u, { gamesserver_id: serverId, amount: 10 * KK });
      expect(out.statusCode).toBe(200);
      const id = out.json().success.id as number;
      const until = async (check: () => Promise<boolean>) => {
        for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
      };
      // The completion takes the operator's and the player's rows, then waits here for the request's row.
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', id).forUpdate().execute());
      const completing = call('POST', `/api/admin/requests/${id}/complete`, admin, {});
      await until(async () => (await lockWaits(t.db.kysely)) === 1);
      expect(await lockWaits(t.db.kysely, '%balance_requests%')).toBe(1);
      // The purchase then waits on the player's row (it took the wallet first, before the fix).
      const buying = call('POST', '/api/vip/', u, { months: 1, gamesserver_id: serverId });
      await until(async () => (await lockWaits(t.db.kysely)) === 2);
      expect(await lockWaits(t.db.kysely)).toBe(2);
      await hold.release();
      const [done, vip] = await Promise.all([completing, buying]);
      expect([done.statusCode, vip.statusCode]).toEqual([200, 200]);
      expect(vip.json().success.vip).toBe(true);
      expect(await balanceOf(u.id, 2)).toBe(1000 - 300);
      expect(await balanceOf(u.id, 1)).toBe(90 * KK);
      await expectAudit();
    });

    it.runIf(kind === 'postgres')('a history read of all servers takes the player’s wallets in id order, as a VIP purchase without a server does (no deadlock between them)', async () => {
      const u = await createUser(t.db.kysely);
      const servers = await t.db.kysely.selectFrom('gamesservers').select('id').where('active', '=', true).orderBy('id').limit(2).execute();
      // The lower wallet id on the later server: the (user, server) index and, after the updates below, the table
      // both hold the higher id first, whichever the UPDATE's plan reads.
      const low = await createWallet(t.db.kysely, u.id, servers[1]!.id, 'Low');
      const high = await createWallet(t.db.kysely, u.id, servers[0]!.id, 'High');
      await fund(t.db.kysely, low, 1000n, 2);
      await fund(t.db.kysely, high, 1000n, 2);
      // Both carry a notice. The lower id's nick changes (as a player's nick does) until its row lies after the higher
      // one: a change of an indexed column writes a new row version and new index entries, so scans that read the
      // table in its order (a bitmap scan's) meet the higher id first.
      await t.db.kysely.updateTable('wallets').set({ new_message: true }).where('id', '=', high.id).execute();
      let renamed = 0;
      const place = async (id: number) => {
        const { rows } = await sql<{ ctid: string }>`SELECT ctid::text FROM wallets WHERE id = ${id}`.execute(t.db.kysely);
        const [page, item] = rows[0]!.ctid.slice(1, -1).split(',').map(Number);
        return page! * 100_000 + item!;
      };
      do await t.db.kysely.updateTable('wallets').set({ new_message: true, nick: `Low${++renamed}` }).where('id', '=', low.id).execute();
      while ((await place(low.id)) < (await place(high.id)));
      // A purchase without a server holds the lower wallet (it locks the player's wallets in id order)…
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('wallets').select('id').where('id', '=', low.id).forUpdate().execute());
      const reading = call('GET', '/api/get_user_input_output_balance', u);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the history read to wait for a wallet');
      // …and would next take the higher one: the history read must not hold it meanwhile (taken in table order, it did,
      // and the two waited on each other: one answered 503).
      const higherFree = await t.db.kysely
        .transaction()
        .execute(async (trx) => {
          await sql`SET LOCAL lock_timeout = '200ms'`.execute(trx);
          await trx.selectFrom('wallets').select('id').where('id', '=', high.id).forUpdate().execute();
          return true;
        })
        .catch(() => false);
      await hold.release();
      expect((await reading).statusCode).toBe(200);
      expect(higherFree).toBe(true);
      const flags = await t.db.kysely.selectFrom('wallets').select('new_message').where('user_id', '=', u.id).execute();
      expect(flags.map((f) => f.new_message)).toEqual([false, false]);
    });

    it('a period is whole 24-hour days whatever the database session\'s time zone (a daylight-saving change inside it)', async () => {
      // Review finding: days were added in the session's zone; under Europe/Berlin a period across March's change was an hour short.
      const u = await createUser(t.db.kysely);
      // Far ahead, so the period counts from this end, not from now, for decades to come.
      await t.db.kysely.updateTable('users').set({ vip_until: new Date('2099-03-20T12:00:00Z') }).where('id', '=', u.id).execute();
      const after = await t.db.kysely.transaction().execute(async (trx) => {
        await sql`SET LOCAL timezone = 'Europe/Berlin'`.execute(trx);
        return vipRepository.extendVip(trx, u.id, 30);
      });
      expect(new Date(after.vip_until!).toISOString()).toBe('2099-04-19T12:00:00.000Z');
    });

    it('takes coins, extends VIP from its current end, and lowers the fee at once', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 1000n, 2);
      await fund(t.db.kysely, w, 100n * BigInt(KK), 1);
      const poor = await call('POST', '/api/vip/', u, { months: 4 });
      expect(poor.statusCode).toBe(409);
      expect(poor.json().low_cap).toBe(true);
      const res = await call('POST', '/api/vip/', u, { months: 2 });
      expect(res.statusCode).toBe(200);
      const user = res.json().success;
      expect(user.vip).toBe(true);
      const days = (new Date(user.vip_until).getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(59.9);
      expect(days).toBeLessThan(60.1);
      expect(await balanceOf(u.id, 2)).toBe(1000 - 600);
      const more = (await call('POST', '/api/vip/', u, { months: 1, gamesserver_id: serverId })).json().success;
      expect(new Date(more.vip_until).getTime() - new Date(user.vip_until).getTime()).toBe(30 * 86_400_000);
      expect((await issue(u, w.id, 10 * KK)).json().summa).toBe(price(10 * KK, 100));
      expect((await call('POST', '/api/vip/', u, { months: 0 })).statusCode).toBe(422);
      await expectAudit();
    });

    it('says not enough coins under months, the field the request has, whether the server is chosen or not', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 100n, 2);
      const expected = { low_cap: true, errors: { months: ['Недостаточно монет эйнхасад для покупки VIP'] } };
      const chosen = await call('POST', '/api/vip/', u, { months: 1, gamesserver_id: serverId });
      expect(chosen.statusCode).toBe(409);
      expect(chosen.json()).toMatchObject(expected);
      expect(chosen.json().errors).not.toHaveProperty('amount');
      const any = await call('POST', '/api/vip/', u, { months: 1 });
      expect(any.statusCode).toBe(409);
      expect(any.json()).toMatchObject(expected);
      expect(await balanceOf(u.id, 2)).toBe(100);
      await expectAudit();
    });

    it('charges only the price and period the player confirmed: changed terms are 409 with the new ones, nothing taken', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 1000n, 2);
      const terms = (vip_price: number, vip_period_days: number) =>
        t.db.kysely.updateTable('gamesservers').set({ vip_price: BigInt(vip_price), vip_period_days }).where('id', '=', serverId).execute();
      const vipUntil = async () => (await t.db.kysely.selectFrom('users').select('vip_until').where('id', '=', u.id).executeTakeFirstOrThrow()).vip_until;
      // The dialog showed 2 months for 600 coins and 60 days; an operator then raised the price, then cut the period.
      const shown = { months: 2, gamesserver_id: serverId, price: 600, days: 60 };
      try {
        await terms(400, 30);
        const dearer = await call('POST', '/api/vip/', u, shown);
        expect(dearer.statusCode).toBe(409);
        expect(dearer.json()).toMatchObject({ price: 800, days: 60, message: 'Условия VIP изменились: теперь 800 монет эйнхасад за 60 дней. Проверьте и оплатите ещё раз' });
        await terms(300, 7);
        const shorter = await call('POST', '/api/vip/', u, shown);
        expect(shorter.statusCode).toBe(409);
        // A 409 carries `errors` too (PRODUCT.md section 3), on the term that changed.
        expect(shorter.json()).toMatchObject({ price: 600, days: 14, errors: { days: [expect.stringMatching(/^Условия VIP изменились/)] } });
        // Even without a server chosen, the one whose coins pay is checked against what was confirmed.
        expect((await call('POST', '/api/vip/', u, { months: 2, price: 600, days: 60 })).json()).toMatchObject({ price: 600, days: 14 });
        expect(await balanceOf(u.id, 2)).toBe(1000);
        expect(await vipUntil()).toBeNull();
        // A price above the balance is named before the shortfall, so the player sees what changed.
        await terms(600, 30);
        expect((await call('POST', '/api/vip/', u, shown)).json()).toMatchObject({ price: 1200, days: 60 });
        await terms(300, 30);
        const ok = await call('POST', '/api/vip/', u, shown);
        expect(ok.statusCode).toBe(200);
        expect(await balanceOf(u.id, 2)).toBe(400);
      } finally {
        await terms(300, 30);
      }
      await expectAudit();
    });
  });
});
