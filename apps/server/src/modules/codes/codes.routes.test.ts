import type { AuthPriceData, PriceData } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;
const price = (nominal: number, bp: number) => nominal + Number(feeOf(BigInt(nominal), bp));

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('gift codes on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
  let buyer: Player;
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
    buyer = await createUser(t.db.kysely);
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, sellerWallet, 1000n * BigInt(KK));
  });
  afterAll(() => t.close());

  describe('price data', () => {
    it('shows anyone the standard nominals at the standard fee and nothing of any user', async () => {
      const res = await call('GET', `/api/varianty_adeny_za_kod/${serverId}`, null);
      expect(res.statusCode).toBe(200);
      const data: PriceData = res.json();
      expect(data.gamesserver).toMatchObject({ id: serverId, name: 'Scryde x50' });
      expect(data.standard_nominals[0]).toEqual({ nominal: KK, price: price(KK, 300) });
      expect(data).toMatchObject({ kods: [], pricekods: [], svoy_variant_kods: [], code_fee_bp: 300, min_nominal: KK });
      expect(data).not.toHaveProperty('wallet');
    });

    it('answers 404 for a server that does not exist and 422 for a bad id', async () => {
      expect((await call('GET', '/api/varianty_adeny_za_kod/999999', null)).statusCode).toBe(404);
      expect((await call('GET', '/api/varianty_adeny_za_kod/abc', null)).statusCode).toBe(422);
    });

    it("shows a signed-in player their wallet, nick, limit and own open codes with sert", async () => {
      const issued = (await issue(seller, sellerWallet.id, 5 * KK)).json();
      const res = await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller);
      expect(res.statusCode).toBe(200);
      const data: AuthPriceData = res.json();
      expect(data.wallet.id).toBe(sellerWallet.id);
      expect(data).toMatchObject({ nick: 'Seller', save_nick: 'Seller', telegram_price: null, user_kod: null });
      expect(data.kods.map((k) => [k.id, k.sert, k.status])).toContainEqual([issued.code_id, issued.sert, 'active']);
      await call('POST', `/api/codes/${issued.code_id}/cancel`, seller);
    });
  });

  describe('issuing', () => {
    it('debits nominal plus the fee, rounded up, and shows the sert to the issuer', async () => {
      const before = await balanceOf(seller.id);
      const nominal = 1_234_567;
      const res = await issue(seller, sellerWallet.id, nominal);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      // 3% of 1 234 567 = 37 037.01 → 37 038.
      expect(body).toMatchObject({ success: true, summa: nominal + 37_038, status: 'active' });
      expect(body.sert).toMatch(/^ADN(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
      expect(await balanceOf(seller.id)).toBe(before - nominal - 37_038);
      await expectAudit();
    });

    it('charges a VIP the VIP fee', async () => {
      const vip = await createUser(t.db.kysely);
      await t.db.kysely.updateTable('users').set({ vip_until: new Date(Date.now() + 86_400_000) }).where('id', '=', vip.id).execute();
      const w = await createWallet(t.db.kysely, vip.id, serverId);
      await fund(t.db.kysely, w, 100n * BigInt(KK));
      const res = await issue(vip, w.id, 10 * KK);
      expect(res.json().summa).toBe(price(10 * KK, 100));
      const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, vip)).json();
      expect(data.code_fee_bp).toBe(100);
      expect(data.standard_nominals.find((n) => n.nominal === 10 * KK)?.price).toBe(price(10 * KK, 100));
    });

    it('answers 409 with low_cap when the balance does not cover the price, and moves nothing', async () => {
      const poor = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, poor.id, serverId);
      await fund(t.db.kysely, w, BigInt(KK));
      const res = await issue(poor, w.id, KK);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ low_cap: true, errors: { amount: expect.any(Array) } });
      expect(await balanceOf(poor.id)).toBe(KK);
      expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', poor.id).execute()).toEqual([]);
    });

    it('refuses a nominal under the minimum, a wallet of another server and bad input with Russian 422s', async () => {
      const small = await issue(seller, sellerWallet.id, KK - 1);
      expect(small.statusCode).toBe(422);
      expect(small.json().errors.nominal[0]).toMatch(/^Номинал не меньше 1 000 000 аден$/);
      const other = await t.db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', serverId).executeTakeFirstOrThrow();
      const wrongServer = await call('POST', '/api/show_code/', seller, { gamesserver_id: other.id, nominal: KK, wallet_id: sellerWallet.id });
      expect(wrongServer.statusCode).toBe(422);
      for (const body of [{}, { gamesserver_id: serverId, nominal: 1.5, wallet_id: sellerWallet.id }, { gamesserver_id: serverId, nominal: -5, wallet_id: 1 }]) {
        const res = await call('POST', '/api/show_code/', seller, body);
        expect(res.statusCode).toBe(422);
        expect(res.json().message).toBe('Проверьте введённые данные');
      }
      const huge = await issue(seller, sellerWallet.id, Number.MAX_SAFE_INTEGER);
      expect(huge.statusCode).toBe(422);
    });
  });

  describe('activation', () => {
    it('credits the nominal to the activator once, tells the issuer, and a second try opens an incident', async () => {
      const issued = (await issue(seller, sellerWallet.id, 2 * KK)).json();
      const res = await call('POST', '/api/activation_code/', buyer, { sert: issued.sert.toLowerCase() });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: { code_id: issued.code_id, nominal: 2 * KK, gamesserver_id: serverId, status: 'activated' } });
      expect(await balanceOf(buyer.id)).toBe(2 * KK);

      // The same buyer pressing again: 409, but no incident for the seller.
      const again = await call('POST', '/api/activation_code/', buyer, { sert: issued.sert });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ status: 'activated', errors: { sert: ['Код уже активирован'] } });
      expect((await call('GET', '/api/get_error_user_code', seller)).json()).toEqual({ error_codes_count: 0 });

      // Someone else with the same code: the seller gets an incident, once per person.
      const third = await createUser(t.db.kysely);
      for (let i = 0; i < 2; i++) {
        const r = await call('POST', '/api/activation_code/', third, { sert: issued.sert });
        expect(r.statusCode).toBe(409);
      }
      expect(await balanceOf(third.id)).toBe(0);
      expect((await call('GET', '/api/get_error_user_code', seller)).json()).toEqual({ error_codes_count: 1 });
      const incidents = (await call('GET', '/api/code_incidents', seller)).json();
      expect(incidents[0]).toMatchObject({ code_id: issued.code_id, code_status: 'activated', sert: issued.sert, acknowledged_at: null });
      const ack = await call('POST', `/api/code_incidents/${incidents[0].id}/ack`, seller);
      expect(ack.json()).toEqual({ success: incidents[0].id });
      expect((await call('GET', '/api/get_error_user_code', seller)).json()).toEqual({ error_codes_count: 0 });

      // The buyer's price data remembers the last activated code.
      const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, buyer)).json();
      expect(data.user_kod).toMatchObject({ code_id: issued.code_id, status: 'activated', nominal: 2 * KK });
      expect(data.kods).toEqual([]);
      await expectAudit();
    });

    it('accepts the code without dashes and with look-alike letters', async () => {
      const issued = (await issue(seller, sellerWallet.id, KK)).json();
      const typed = issued.sert.replace(/-/g, ' ').replace(/0/g, 'o').replace(/1/g, 'l');
      const res = await call('POST', '/api/activation_code/', buyer, { sert: typed });
      expect(res.statusCode).toBe(200);
    });

    it('refuses the issuer their own code and keeps it active', async () => {
      const issued = (await issue(seller, sellerWallet.id, KK)).json();
      const res = await call('POST', '/api/activation_code/', seller, { sert: issued.sert });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ status: 'active' });
      const code = await t.db.kysely.selectFrom('codes').select('status').where('id', '=', issued.code_id).executeTakeFirstOrThrow();
      expect(code.status).toBe('active');
    });

    it('answers a plain 404 to an unknown code, 422 to garbage, and 429 with Retry-After to guessing', async () => {
      const guesser = await createUser(t.db.kysely);
      const garbage = await call('POST', '/api/activation_code/', guesser, { sert: 'привет' }, '10.0.0.9');
      expect(garbage.statusCode).toBe(422);
      for (let i = 0; i < 10; i++) {
        const r = await call('POST', '/api/activation_code/', guesser, { sert: `ADN-0000-0000-0000-${String(i).padStart(4, '0')}` }, '10.0.0.9');
        expect(r.statusCode).toBe(404);
        expect(r.json().errors.sert[0]).toMatch(/Код не найден/);
      }
      const blocked = await call('POST', '/api/activation_code/', guesser, { sert: 'ADN-0000-0000-0000-0099' }, '10.0.0.9');
      expect(blocked.statusCode).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(await t.db.kysely.selectFrom('code_incidents').select('id').where('attempted_by', '=', guesser.id).execute()).toEqual([]);

      // Per IP: other accounts from the same address are stopped too.
      for (let n = 0; n < 2; n++) {
        const other = await createUser(t.db.kysely);
        for (let i = 0; i < 10; i++) await call('POST', '/api/activation_code/', other, { sert: 'ADN-1111-1111-1111-1111' }, '10.0.0.9');
      }
      const fresh = await createUser(t.db.kysely);
      expect((await call('POST', '/api/activation_code/', fresh, { sert: 'ADN-2222-2222-2222-2222' }, '10.0.0.9')).statusCode).toBe(429);
      expect((await call('POST', '/api/activation_code/', fresh, { sert: 'ADN-2222-2222-2222-2222' }, '10.0.0.10')).statusCode).toBe(404);
    });
  });

  describe('realtime', () => {
    it('tells the issuer and the activator what changed, each on their own channel', async () => {
      const sent: Array<{ userId: number; name: string; data: Record<string, unknown> }> = [];
      const spy = vi.spyOn(t.app.deps.realtime, 'publish').mockImplementation((userId, name, data) => {
        sent.push({ userId, name, data: data as Record<string, unknown> });
      });
      try {
        const issued = (await issue(seller, sellerWallet.id, KK)).json();
        const sellerBalance = await balanceOf(seller.id);
        expect(sent).toEqual([
          { userId: seller.id, name: 'balance', data: { gamesserver_id: serverId, balance: sellerBalance, balance_second: 0 } },
          { userId: seller.id, name: 'sert', data: { gamesserver_id: serverId, code_id: issued.code_id, nominal: KK, sert: issued.sert } },
        ]);
        sent.length = 0;
        await call('POST', '/api/activation_code/', buyer, { sert: issued.sert });
        expect(sent).toEqual([
          { userId: buyer.id, name: 'balance', data: { gamesserver_id: serverId, balance: await balanceOf(buyer.id), balance_second: 0 } },
          { userId: seller.id, name: 'code_status', data: { gamesserver_id: serverId, code_id: issued.code_id, code_status: 'activated' } },
          { userId: seller.id, name: 'del_sert', data: { gamesserver_id: serverId, del_sert: issued.code_id } },
        ]);
        sent.length = 0;
        const other = await createUser(t.db.kysely);
        await call('POST', '/api/activation_code/', other, { sert: issued.sert });
        const incident = await t.db.kysely.selectFrom('code_incidents').select('id').where('attempted_by', '=', other.id).executeTakeFirstOrThrow();
        expect(sent).toEqual([
          { userId: seller.id, name: 'error_code', data: { gamesserver_id: serverId, code_id: issued.code_id, your_error_code_id: incident.id } },
        ]);
        sent.length = 0;
        const second = (await issue(seller, sellerWallet.id, KK)).json();
        sent.length = 0;
        await call('POST', `/api/codes/${second.code_id}/cancel`, seller);
        expect(sent.map((e) => [e.userId, e.name])).toEqual([
          [seller.id, 'balance'],
          [seller.id, 'code_status'],
          [seller.id, 'del_sert'],
        ]);
        // A refused call publishes nothing.
        sent.length = 0;
        await issue(seller, sellerWallet.id, 1);
        expect(sent).toEqual([]);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('cancel', () => {
    it('refunds the whole price to the issuer, and the code then opens an incident if tried', async () => {
      const before = await balanceOf(seller.id);
      const issued = (await issue(seller, sellerWallet.id, 3 * KK)).json();
      const res = await call('POST', `/api/codes/${issued.code_id}/cancel`, seller);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: issued.code_id, summa: issued.summa });
      expect(await balanceOf(seller.id)).toBe(before);
      const again = await call('POST', `/api/codes/${issued.code_id}/cancel`, seller);
      expect(again.statusCode).toBe(409);
      expect(again.json().status).toBe('cancelled');
      const tried = await call('POST', '/api/activation_code/', buyer, { sert: issued.sert });
      expect(tried.statusCode).toBe(409);
      expect(tried.json().status).toBe('cancelled');
      await expectAudit();
    });
  });

  describe('user variants', () => {
    it('creates a batch, edits count and nominal charging or refunding the difference, and deletes it', async () => {
      const start = await balanceOf(seller.id);
      const p = price(2 * KK, 300);
      const created = await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: 2 * KK, count: 3 });
      expect(created.statusCode).toBe(200);
      const c = created.json();
      expect(c).toMatchObject({ summa: p * 3, count: 3, nominal: 2 * KK, success: { nominal: 2 * KK, price: p, count: 3, open_count: 3 } });
      expect(await balanceOf(seller.id)).toBe(start - p * 3);
      const id = c.success.id;

      const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller)).json();
      const batch = data.svoy_variant_kods.filter((k) => k.pricekod_id === id);
      expect(batch).toHaveLength(3);
      expect(data.kods.some((k) => k.pricekod_id === id)).toBe(false);

      // One code of the batch is activated; the edit touches only the open ones.
      expect((await call('POST', '/api/activation_code/', buyer, { sert: batch[0]!.sert })).statusCode).toBe(200);

      const more = await call('PUT', `/api/pricekods/${id}`, seller, { gamesserver_id: serverId, nominal: 2 * KK, count: 4 });
      expect(more.json()).toMatchObject({ summa: p * 2, count: 4, success: { count: 5, open_count: 4 } });
      expect(await balanceOf(seller.id)).toBe(start - p * 5);

      const fewer = await call('PUT', `/api/pricekods/${id}`, seller, { gamesserver_id: serverId, nominal: 2 * KK, count: 1 });
      expect(fewer.json()).toMatchObject({ summa: -p * 3, count: 1, success: { count: 2, open_count: 1 } });
      expect(await balanceOf(seller.id)).toBe(start - p * 2);

      const p5 = price(5 * KK, 300);
      const renominal = await call('PUT', `/api/pricekods/${id}`, seller, { gamesserver_id: serverId, nominal: 5 * KK, count: 2 });
      expect(renominal.json()).toMatchObject({ summa: p5 * 2 - p, nominal: 5 * KK, success: { nominal: 5 * KK, open_count: 2, price: p5 } });
      expect(await balanceOf(seller.id)).toBe(start - p - p5 * 2);

      const tooMuch = await call('PUT', `/api/pricekods/${id}`, seller, { gamesserver_id: serverId, nominal: 5 * KK, count: 101 });
      expect(tooMuch.statusCode).toBe(422);

      const del = await call('DELETE', `/api/pricekods/${id}`, seller);
      expect(del.json()).toEqual({ success: id, summa: p5 * 2 });
      expect(await balanceOf(seller.id)).toBe(start - p);
      expect((await call('DELETE', `/api/pricekods/${id}`, seller)).statusCode).toBe(404);
      const after: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller)).json();
      expect(after.pricekods.some((x) => x.id === id)).toBe(false);
      await expectAudit();
    });

    it('issues one more code of a variant through show_code with its pricekod_id', async () => {
      const c = (await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: 3 * KK, count: 1 })).json();
      const wrong = await issue(seller, sellerWallet.id, 2 * KK, { pricekod_id: c.success.id });
      expect(wrong.statusCode).toBe(422);
      const res = await issue(seller, sellerWallet.id, 3 * KK, { pricekod_id: c.success.id });
      expect(res.statusCode).toBe(200);
      const code = await t.db.kysely.selectFrom('codes').select('pricekod_id').where('id', '=', res.json().code_id).executeTakeFirstOrThrow();
      expect(code.pricekod_id).toBe(c.success.id);
      await call('DELETE', `/api/pricekods/${c.success.id}`, seller);
    });

    it('answers 409 low_cap when the batch does not fit the balance', async () => {
      const poor = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, poor.id, serverId);
      await fund(t.db.kysely, w, 5n * BigInt(KK));
      const res = await call('POST', '/api/pricekods/', poor, { gamesserver_id: serverId, nominal: KK, count: 5 });
      expect(res.statusCode).toBe(409);
      expect(res.json().low_cap).toBe(true);
      expect(await t.db.kysely.selectFrom('pricekods').select('id').where('user_id', '=', poor.id).execute()).toEqual([]);
    });
  });

  describe('Telegram limit', () => {
    it('sets and clears the limit shown in price data', async () => {
      const set = await call('POST', '/api/add_limit_otvetka/', seller, { gamesserver_id: serverId, telegram_price: 50 * KK });
      expect(set.json()).toEqual({ success: 50 * KK });
      expect((await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller)).json().telegram_price).toBe(50 * KK);
      expect((await call('POST', '/api/add_limit_otvetka/', seller, { gamesserver_id: serverId, telegram_price: 0 })).statusCode).toBe(422);
      expect((await call('POST', '/api/del_limit_otvetka/', seller, { gamesserver_id: serverId })).json()).toEqual({ success: null });
      expect((await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller)).json().telegram_price).toBeNull();
    });

    it('records a notice once per crossing even without a linked chat', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 10n * BigInt(KK));
      await call('POST', '/api/add_limit_otvetka/', u, { gamesserver_id: serverId, telegram_price: 5 * KK });
      await issue(u, w.id, 2 * KK); // 10 → 7.94: above
      await issue(u, w.id, 2 * KK); // → 5.88: above
      await issue(u, w.id, KK); // → 4.85: crosses
      await issue(u, w.id, KK); // → 3.82: already below
      const notices = await t.db.kysely.selectFrom('telegram_notices').selectAll().where('user_id', '=', u.id).execute();
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ status: 'no_chat', threshold: 5n * BigInt(KK), balance: BigInt(10 * KK - 2 * price(2 * KK, 300) - 2 * price(KK, 300)) + BigInt(price(KK, 300)) });
      expect((await call('GET', '/api/telegram_link', u)).json()).toEqual({ url: null, linked: false });
    });
  });

  describe('VIP', () => {
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
  });

  describe('admin', () => {
    it('lists incidents, looks a code up by sert or id with its story, and cancels it with a refund', async () => {
      const admin = await createUser(t.db.kysely, { admin: true });
      const issued = (await issue(seller, sellerWallet.id, 4 * KK)).json();
      const before = await balanceOf(seller.id);
      const bySert = await call('GET', `/api/admin/codes?sert=${issued.sert}`, admin);
      expect(bySert.statusCode).toBe(200);
      expect(bySert.json().code).toMatchObject({ id: issued.code_id, sert: issued.sert, sert_masked: false, status: 'active', issuer: { id: seller.id } });
      expect(bySert.json().ledger.map((e: { transaction_kind: string }) => e.transaction_kind)).toContain('code_issue');
      const byId = (await call('GET', `/api/admin/codes?id=${issued.code_id}`, admin)).json();
      expect(byId.code.sert).not.toBe(issued.sert);
      expect(byId.code.sert_masked).toBe(true);
      expect((await call('GET', '/api/admin/codes', admin)).statusCode).toBe(422);
      expect((await call('GET', '/api/admin/codes?id=999999', admin)).statusCode).toBe(404);

      const cancelled = await call('POST', `/api/admin/codes/${issued.code_id}/cancel`, admin, { reason: 'жалоба покупателя' });
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ summa: issued.summa, success: { status: 'cancelled', cancelled_by: admin.id } });
      expect(await balanceOf(seller.id)).toBe(before + issued.summa);
      expect((await call('POST', `/api/admin/codes/${issued.code_id}/cancel`, admin, { reason: 'ещё раз' })).statusCode).toBe(409);
      const audit = await t.db.kysely.selectFrom('admin_audit_log').selectAll().where('entity_type', '=', 'code').execute();
      expect(audit.map((a) => a.entity_id)).toContain(String(issued.code_id));

      await call('POST', '/api/activation_code/', buyer, { sert: issued.sert });
      const list = (await call('GET', '/api/admin/code_incidents?state=open', admin)).json();
      expect(list.total).toBeGreaterThan(0);
      expect(list.data[0]).toMatchObject({ code_id: issued.code_id, code_status: 'cancelled', attempted_by: { id: buyer.id } });
      expect(list.data[0].sert).toContain('****');
      const story = (await call('GET', `/api/admin/codes?id=${issued.code_id}`, admin)).json();
      expect(story.attempts.map((a: { result: string }) => a.result)).toEqual(['cancelled']);
      expect(story.incidents).toHaveLength(1);
      await expectAudit();
    });
  });
});
