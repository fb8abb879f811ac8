import type { AuthPriceData, PriceData } from '@adena/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { auditLedger } from '../ledger/ledger.service';
import { priceDataRepository } from './price-data.repository';

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

    it('leaves out a stored standard nominal whose price with the fee no JSON number carries, rather than answer 500', async () => {
      const { standard_nominals: kept } = await t.db.kysely.selectFrom('gamesservers').select('standard_nominals').where('id', '=', serverId).executeTakeFirstOrThrow();
      // As an operator's form could save it before the form checked the price (9e15 plus 3 % is past 2^53 − 1).
      await t.db.kysely
        .updateTable('gamesservers')
        .set({ standard_nominals: JSON.stringify([KK, 9_000_000_000_000_000]) })
        .where('id', '=', serverId)
        .execute();
      try {
        const anon = await call('GET', `/api/varianty_adeny_za_kod/${serverId}`, null);
        expect(anon.statusCode).toBe(200);
        expect((anon.json() as PriceData).standard_nominals).toEqual([{ nominal: KK, price: price(KK, 300) }]);
        const own = await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller);
        expect(own.statusCode).toBe(200);
        expect((own.json() as AuthPriceData).standard_nominals).toEqual([{ nominal: KK, price: price(KK, 300) }]);
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ standard_nominals: JSON.stringify(kept) }).where('id', '=', serverId).execute();
      }
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

  describe('price data in one statement', () => {
    it('answers exactly what the separate reads answered: open codes, variants with counts, the last activation, the wallet', async () => {
      const owner = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, owner.id, serverId, 'Owner');
      await fund(t.db.kysely, w, 200n * BigInt(KK));
      await t.db.kysely.updateTable('wallets').set({ telegram_price: 7n * BigInt(KK) }).where('id', '=', w.id).execute();
      const single = [(await issue(owner, w.id, 2 * KK)).json(), (await issue(owner, w.id, 3 * KK)).json()];
      const variant = (await call('POST', '/api/pricekods/', owner, { gamesserver_id: serverId, nominal: 4 * KK, count: 3 })).json().success;
      const gone = (await call('POST', '/api/pricekods/', owner, { gamesserver_id: serverId, nominal: 5 * KK, count: 1 })).json().success;
      expect((await call('DELETE', `/api/pricekods/${gone.id}`, owner)).statusCode).toBe(200);
      // One of the variant's codes is taken by another player, one single code is cancelled; the owner activates the seller's code.
      const open = (await t.db.kysely.selectFrom('codes').select(['id', 'sert']).where('pricekod_id', '=', variant.id).orderBy('id').execute())[0]!;
      // A taker of its own: the shared buyer's balance is asserted by the activation tests below.
      const taker = await createUser(t.db.kysely);
      expect((await call('POST', '/api/activation_code/', taker, { sert: open.sert })).statusCode).toBe(200);
      await call('POST', `/api/codes/${single[0].code_id}/cancel`, owner);
      const fromSeller = (await issue(seller, sellerWallet.id, 6 * KK)).json();
      expect((await call('POST', '/api/activation_code/', owner, { sert: fromSeller.sert })).statusCode).toBe(200);

      const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, owner)).json();
      // What the separate queries return, mapped the same way.
      const rows = await t.db.kysely
        .selectFrom('codes')
        .selectAll()
        .where('user_id', '=', owner.id)
        .where('gamesserver_id', '=', serverId)
        .where('status', '=', 'active')
        .orderBy('id', 'desc')
        .execute();
      const wire = (c: (typeof rows)[number]) => ({
        id: c.id,
        nominal: Number(c.nominal),
        price: Number(c.price),
        status: c.status,
        sert: c.sert,
        gamesserver_id: c.gamesserver_id,
        pricekod_id: c.pricekod_id,
        created_at: new Date(c.created_at).toISOString(),
        activated_at: null,
      });
      expect(data.kods).toEqual(rows.filter((c) => c.pricekod_id === null).map(wire));
      expect(data.kods.map((k) => k.id)).toEqual([single[1].code_id]);
      expect(data.svoy_variant_kods).toEqual(rows.filter((c) => c.pricekod_id !== null).map(wire));
      expect(data.svoy_variant_kods).toHaveLength(2);
      const created = await t.db.kysely.selectFrom('pricekods').select('created_at').where('id', '=', variant.id).executeTakeFirstOrThrow();
      expect(data.pricekods).toEqual([
        { id: variant.id, gamesserver_id: serverId, nominal: 4 * KK, price: price(4 * KK, 300), count: 3, open_count: 2, created_at: new Date(created.created_at).toISOString() },
      ]);
      const activated = await t.db.kysely.selectFrom('codes').select('activated_at').where('id', '=', fromSeller.code_id).executeTakeFirstOrThrow();
      // Shaped as a code where a code has these fields (PRODUCT.md section 3: `id`, `gamesserver_id`); `code_id` kept.
      expect(data.user_kod).toEqual({
        id: fromSeller.code_id,
        gamesserver_id: serverId,
        code_id: fromSeller.code_id,
        nominal: 6 * KK,
        status: 'activated',
        activated_at: new Date(activated.activated_at!).toISOString(),
      });
      const wallet = await t.db.kysely.selectFrom('wallets').selectAll().where('id', '=', w.id).executeTakeFirstOrThrow();
      expect(data).toMatchObject({
        wallet: { id: w.id, balance: Number(wallet.balance), balance_second: Number(wallet.balance_second) },
        nick: 'Owner',
        save_nick: 'Owner',
        telegram_price: 7 * KK,
      });
    });

    it('answers many callers at once, each their own price data on their server, as each alone gets it', async () => {
      const servers = await t.db.kysely.selectFrom('gamesservers').select('id').where('active', '=', true).orderBy('id').execute();
      const otherServer = servers.find((s) => s.id !== serverId)!.id;
      const players = await Promise.all(Array.from({ length: 9 }, () => createUser(t.db.kysely)));
      await Promise.all(
        players.map(async (p, i) => {
          if (i % 3 === 0) return; // no wallet yet: made by the read
          const w = await createWallet(t.db.kysely, p.id, i % 2 ? serverId : otherServer, `Hero${i}`);
          await fund(t.db.kysely, w, 100n * BigInt(KK));
          if (i % 2) expect((await issue(p, w.id, (i + 1) * KK)).statusCode).toBe(200);
        }),
      );
      const url = (i: number) => `/api/auth_varianty_adeny_za_kod/${i === 8 ? 999999 : i % 2 ? serverId : otherServer}`;
      const together = await Promise.all([...players, ...players].map((p, n) => call('GET', url(n % players.length), p)));
      for (const [n, res] of together.entries()) {
        const i = n % players.length;
        const alone = await call('GET', url(i), players[i]!);
        expect(res.statusCode).toBe(i === 8 ? 404 : 200);
        expect(res.json()).toEqual(alone.json());
        if (i === 8) continue;
        const data: AuthPriceData = res.json();
        expect(data.gamesserver.id).toBe(i % 2 ? serverId : otherServer);
        expect(data.nick).toBe(i % 3 === 0 ? null : `Hero${i}`);
        expect(data.kods.map((k) => k.nominal)).toEqual(i % 2 && i % 3 ? [(i + 1) * KK] : []);
      }
      expect(await t.db.kysely.selectFrom('wallets').select('id').where('user_id', 'in', players.map((p) => p.id)).execute()).toHaveLength(9);

      // A batch of many pairs is one statement over two arrays: it reads what each pair's own statement reads.
      const stranger = await createUser(t.db.kysely);
      const pairs = [...players, stranger].flatMap((p) => [serverId, otherServer, 999999].map((gameServerId) => ({ ownerId: p.id, gameServerId })));
      const batch = await priceDataRepository.priceDataOf(t.db.kysely, pairs);
      expect(batch.size).toBe(2 * (players.length + 1));
      for (const pair of pairs) {
        const alone = await priceDataRepository.priceDataOf(t.db.kysely, [pair]);
        expect(batch.get(`${pair.ownerId}:${pair.gameServerId}`)).toEqual(alone.get(`${pair.ownerId}:${pair.gameServerId}`));
      }
      expect(batch.get(`${stranger.id}:${serverId}`)?.wallet).toBeNull();
      expect(batch.get(`${players[1]!.id}:${serverId}`)?.open).toHaveLength(1);
    });

    it('makes the wallet on the first visit, once, and 404s an inactive server', async () => {
      const newcomer = await createUser(t.db.kysely);
      const first: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, newcomer)).json();
      const again: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, newcomer)).json();
      const ws = await t.db.kysely.selectFrom('wallets').select('id').where('user_id', '=', newcomer.id).execute();
      expect(ws).toEqual([{ id: first.wallet.id }]);
      expect(again.wallet).toEqual({ id: first.wallet.id, balance: 0, balance_second: 0 });
      expect(first).toMatchObject({ kods: [], svoy_variant_kods: [], pricekods: [], user_kod: null, nick: null });
      const closed = (
        await sql<{ id: number }>`INSERT INTO gamesservers (name, cashier_nick, limits, active)
          SELECT 'Closed x1', cashier_nick, limits, false FROM gamesservers WHERE id = ${serverId} RETURNING id`.execute(t.db.kysely)
      ).rows[0]!;
      expect((await call('GET', `/api/auth_varianty_adeny_za_kod/${closed.id}`, newcomer)).statusCode).toBe(404);
      expect((await call('GET', '/api/auth_varianty_adeny_za_kod/999999', newcomer)).statusCode).toBe(404);
      expect(await t.db.kysely.selectFrom('wallets').select('id').where('user_id', '=', newcomer.id).execute()).toHaveLength(1);
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

    it('charges the price the player confirmed or nothing: after an operator changed the fee, 409 with the new price', async () => {
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId);
      await fund(t.db.kysely, w, 10n * BigInt(KK));
      const shown = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, p)).json().standard_nominals.find((n: { nominal: number }) => n.nominal === KK).price;
      expect(shown).toBe(price(KK, 300));
      // The operator raises the fee while the player's page still shows the old price.
      await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 500 }).where('id', '=', serverId).execute();
      try {
        const stale = await issue(p, w.id, KK, { price: shown });
        expect(stale.statusCode).toBe(409);
        expect(stale.json()).toMatchObject({ price: price(KK, 500), errors: { price: [expect.stringMatching(/^Цена кода изменилась/)] } });
        expect(stale.json().message).toContain(`теперь 1\u00a0050\u00a0000`.replace(/\u00a0/g, ' '));
        expect(await balanceOf(p.id)).toBe(10 * KK);
        expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', p.id).execute()).toEqual([]);
        // Confirmed again at the new price, or sent without one (other programs), it goes through.
        expect((await issue(p, w.id, KK, { price: price(KK, 500) })).json().summa).toBe(price(KK, 500));
        expect((await issue(p, w.id, KK)).json().summa).toBe(price(KK, 500));
        expect(await balanceOf(p.id)).toBe(10 * KK - 2 * price(KK, 500));
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 300 }).where('id', '=', serverId).execute();
      }
      await expectAudit();
    });

    it('answers 409 with low_cap when the balance does not cover the price, and moves nothing', async () => {
      const poor = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, poor.id, serverId);
      await fund(t.db.kysely, w, BigInt(KK));
      const res = await issue(poor, w.id, KK);
      expect(res.statusCode).toBe(409);
      // The field the player sent: a form puts it under the nominal, not under an amount it does not have.
      expect(res.json()).toMatchObject({ low_cap: true, errors: { nominal: ['Недостаточно средств на балансе'] } });
      expect(res.json().errors).not.toHaveProperty('amount');
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

      // The same buyer pressing again (a retry whose first answer was lost): 409 saying the adena is
      // theirs already, not that someone took the code, and no incident for the seller; nothing moves.
      const again = await call('POST', '/api/activation_code/', buyer, { sert: issued.sert });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ status: 'activated', errors: { sert: ['Вы уже активировали этот код: 2 000 000 аден на вашем балансе'] } });
      expect(await balanceOf(buyer.id)).toBe(2 * KK);
      expect((await call('GET', '/api/get_error_user_code', seller)).json()).toEqual({ error_codes_count: 0 });

      // Someone else with the same code: the seller gets an incident, once per person.
      const third = await createUser(t.db.kysely);
      for (let i = 0; i < 2; i++) {
        const r = await call('POST', '/api/activation_code/', third, { sert: issued.sert });
        expect(r.statusCode).toBe(409);
        expect(r.json().errors.sert).toEqual(['Код уже активирован']);
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

    it('counts guesses before looking them up: thirty sent at once look up at most ten', async () => {
      const guesser = await createUser(t.db.kysely);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => call('POST', '/api/activation_code/', guesser, { sert: `ADN-3333-3333-3333-${String(i).padStart(4, '0')}` }, '10.0.3.3')),
      );
      const statuses = answers.map((r) => r.statusCode);
      expect(statuses.every((s) => s === 404 || s === 429)).toBe(true);
      expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(10);
      const tried = await t.db.kysely.selectFrom('code_attempts').select('id').where('user_id', '=', guesser.id).execute();
      expect(tried.length).toBeLessThanOrEqual(10);
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

    it('names `id`, not `sert`, in the 409 of a refused cancel; a refused activation keeps `sert`', async () => {
      const taken = (await issue(seller, sellerWallet.id, KK)).json();
      expect((await call('POST', '/api/activation_code/', buyer, { sert: taken.sert })).statusCode).toBe(200);
      const activated = await call('POST', `/api/codes/${taken.code_id}/cancel`, seller);
      expect(activated.statusCode).toBe(409);
      expect(activated.json()).toEqual({ message: 'Код уже активирован', errors: { id: ['Код уже активирован'] }, status: 'activated' });

      const mine = (await issue(seller, sellerWallet.id, KK)).json();
      expect((await call('POST', `/api/codes/${mine.code_id}/cancel`, seller)).statusCode).toBe(200);
      const cancelled = await call('POST', `/api/codes/${mine.code_id}/cancel`, seller);
      expect(cancelled.statusCode).toBe(409);
      expect(cancelled.json()).toEqual({ message: 'Код отменён владельцем', errors: { id: ['Код отменён владельцем'] }, status: 'cancelled' });
      // The activation call carries `sert`, and its refusal still names it (the issuer's own and anyone's).
      for (const who of [buyer, seller]) {
        const tried = await call('POST', '/api/activation_code/', who, { sert: mine.sert });
        expect(tried.statusCode).toBe(409);
        expect(tried.json().errors).toEqual({ sert: ['Код отменён владельцем'] });
      }
      await expectAudit();
    });

    it('answers a cancel retried with its Idempotency-Key after a lost answer with the first answer, and refunds once', async () => {
      const before = await balanceOf(seller.id);
      const issued = (await issue(seller, sellerWallet.id, 2 * KK)).json();
      const keyed = () =>
        t.app.inject({ method: 'POST', url: `/api/codes/${issued.code_id}/cancel`, headers: { ...seller.auth, 'idempotency-key': `c-${issued.code_id}` } });
      expect((await keyed()).json()).toEqual({ success: issued.code_id, summa: issued.summa });
      const retry = await keyed();
      expect(retry.statusCode).toBe(200);
      expect(retry.json()).toEqual({ success: issued.code_id, summa: issued.summa });
      expect(await balanceOf(seller.id)).toBe(before);
      await expectAudit();
    });
  });
});
