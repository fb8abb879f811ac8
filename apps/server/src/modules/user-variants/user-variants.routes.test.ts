import type { AuthPriceData } from '@adena/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { OPEN_CODES_LIMIT } from '../codes/codes.repository';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;
const price = (nominal: number, bp: number) => nominal + Number(feeOf(BigInt(nominal), bp));

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('user variants on %s', (kind) => {
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

    it('a deletion retried with its Idempotency-Key after a lost answer gets the first answer, and refunds once', async () => {
      const before = await balanceOf(seller.id);
      const made = await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: KK, count: 3 });
      expect(made.statusCode).toBe(200);
      const id = made.json().success.id as number;
      const paid = before - (await balanceOf(seller.id));
      const del = (key?: string) =>
        t.app.inject({ method: 'DELETE', url: `/api/pricekods/${id}`, headers: { ...seller.auth, ...(key ? { 'idempotency-key': key } : {}) } });
      const first = await del('del-1');
      expect(first.json()).toEqual({ success: id, summa: paid });
      // The answer was lost: the web app sends the same key again and learns what was refunded.
      const retry = await del('del-1');
      expect(retry.statusCode).toBe(200);
      expect(retry.json()).toEqual({ success: id, summa: paid });
      expect(await balanceOf(seller.id)).toBe(before);
      // Without the key (another program) the batch is simply gone; another user's key space is their own.
      expect((await del()).statusCode).toBe(404);
      const other = await t.app.inject({ method: 'DELETE', url: `/api/pricekods/${id}`, headers: { ...buyer.auth, 'idempotency-key': 'del-1' } });
      expect(other.statusCode).toBe(404);
      await expectAudit();
    });

    it('a batch whose one code would cost past 2^53 − 1 is a 422, created or edited, also when the page sent its price', async () => {
      // Review finding: the confirmed-price check ran first and its 409 could not carry the price: 500.
      const MAX = Number.MAX_SAFE_INTEGER;
      const created = await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: MAX - 10, count: 1, price: MAX });
      expect(created.statusCode).toBe(422);
      const ok = await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: 2 * KK, count: 1 });
      expect(ok.statusCode).toBe(200);
      const id = ok.json().success.id as number;
      const edited = await call('PUT', `/api/pricekods/${id}`, seller, { nominal: MAX - 10, count: 1, price: MAX });
      expect(edited.statusCode).toBe(422);
      expect((await call('DELETE', `/api/pricekods/${id}`, seller)).statusCode).toBe(200);
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

    it('refuses a code added through show_code to a batch that already holds 100 open codes, as an edit refuses 101', async () => {
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId);
      const one = price(KK, 300);
      await fund(t.db.kysely, w, BigInt(101 * one));
      const created = await call('POST', '/api/pricekods/', p, { gamesserver_id: serverId, nominal: KK, count: 100 });
      expect(created.statusCode).toBe(200);
      const id = created.json().success.id;
      const res = await issue(p, w.id, KK, { pricekod_id: id });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.pricekod_id).toEqual(['Не больше 100 кодов']);
      expect(await balanceOf(p.id)).toBe(one);
      const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, p)).json();
      expect(data.pricekods.find((v) => v.id === id)).toMatchObject({ open_count: 100 });
      // One activated leaves room for one more.
      const [first] = data.svoy_variant_kods.filter((k) => k.pricekod_id === id);
      expect((await call('POST', '/api/activation_code/', buyer, { sert: first!.sert })).statusCode).toBe(200);
      expect((await issue(p, w.id, KK, { pricekod_id: id })).statusCode).toBe(200);
      expect((await call('DELETE', `/api/pricekods/${id}`, p)).json().summa).toBe(100 * one);
      await expectAudit();
    });

    it('refuses a code added through show_code that would make the batch refund more than a JSON number carries', async () => {
      const big = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, big.id, serverId);
      const nominal = 4e15;
      const p = BigInt(price(nominal, 300));
      await fund(t.db.kysely, w, 2n * p);
      const created = await call('POST', '/api/pricekods/', big, { gamesserver_id: serverId, nominal, count: 2 });
      expect(created.statusCode).toBe(200);
      const id = created.json().success.id;
      await fund(t.db.kysely, w, p);
      // A third code fits the balance, but the batch's removal would then refund 3p, past 2^53 − 1.
      const third = await issue(big, w.id, nominal, { pricekod_id: id });
      expect(third.statusCode).toBe(422);
      expect(third.json().errors.pricekod_id).toEqual(['Слишком большая сумма']);
      expect(await balanceOf(big.id)).toBe(Number(p));
      const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, big)).json();
      expect(data.pricekods.find((v) => v.id === id)).toMatchObject({ open_count: 2 });
      await expectAudit();
    });

    it("answers show_code's pricekod_id of another player or of a deleted batch with 404 on pricekod_id", async () => {
      const c = (await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: 3 * KK, count: 1 })).json();
      const buyerWallet = await createWallet(t.db.kysely, buyer.id, serverId);
      await fund(t.db.kysely, buyerWallet, 10n * BigInt(KK));
      const foreign = await issue(buyer, buyerWallet.id, 3 * KK, { pricekod_id: c.success.id });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().errors).toEqual({ pricekod_id: ['Вариант не найден'] });
      expect((await call('DELETE', `/api/pricekods/${c.success.id}`, seller)).statusCode).toBe(200);
      const deleted = await issue(seller, sellerWallet.id, 3 * KK, { pricekod_id: c.success.id });
      expect(deleted.statusCode).toBe(404);
      expect(deleted.json().errors).toEqual({ pricekod_id: ['Вариант не найден'] });
      // The batch's own calls name it by `id`, in their path.
      const again = await call('DELETE', `/api/pricekods/${c.success.id}`, seller);
      expect(again.statusCode).toBe(404);
      expect(again.json().errors).toEqual({ id: ['Вариант не найден'] });
    });

    it('refuses an edit whose batch would hold more than a JSON number carries, though each step fit the balance (its removal refunds it all)', async () => {
      const big = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, big.id, serverId);
      const nominal = 4e15;
      const p = BigInt(price(nominal, 300));
      await fund(t.db.kysely, w, p);
      const created = await call('POST', '/api/pricekods/', big, { gamesserver_id: serverId, nominal, count: 1 });
      expect(created.statusCode).toBe(200);
      const id = created.json().success.id;
      await fund(t.db.kysely, w, p);
      expect((await call('PUT', `/api/pricekods/${id}`, big, { gamesserver_id: serverId, nominal, count: 2 })).statusCode).toBe(200);
      // A third code would make the batch's refund 3p, past 2^53: refused before the balance is looked at.
      const third = await call('PUT', `/api/pricekods/${id}`, big, { gamesserver_id: serverId, nominal, count: 3 });
      expect(third.statusCode).toBe(422);
      expect(third.json().errors.nominal).toEqual(['Слишком большая сумма']);
      // Nothing moved, and the batch of two still comes back whole.
      expect(await balanceOf(big.id)).toBe(0);
      const removed = await call('DELETE', `/api/pricekods/${id}`, big);
      expect(removed.statusCode).toBe(200);
      expect(removed.json().summa).toBe(Number(2n * p));
      await expectAudit();
    });

    it('counts the codes an edit keeps at what they were paid: after a fee cut, a batch its removal could not refund is refused', async () => {
      const big = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, big.id, serverId);
      const nominal = 4e15;
      await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 10000 }).where('id', '=', serverId).execute();
      try {
        await fund(t.db.kysely, w, 8_000_000_000_000_000n);
        const created = await call('POST', '/api/pricekods/', big, { gamesserver_id: serverId, nominal, count: 1 });
        expect(created.json().summa).toBe(8e15);
        const id = created.json().success.id;
        // The fee is cut to nothing: a second code costs 4e15, but the first stays paid at 8e15.
        // Refused before the balance is looked at (before, it was checked as 2 × 4e15 and charged when funded).
        await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 0 }).where('id', '=', serverId).execute();
        const grown = await call('PUT', `/api/pricekods/${id}`, big, { gamesserver_id: serverId, nominal, count: 2 });
        expect(grown.statusCode).toBe(422);
        expect(grown.json().errors.nominal).toEqual(['Слишком большая сумма']);
        expect(await balanceOf(big.id)).toBe(0);
        // The batch still comes back whole.
        const removed = await call('DELETE', `/api/pricekods/${id}`, big);
        expect(removed.statusCode).toBe(200);
        expect(removed.json().summa).toBe(8e15);
        expect(await balanceOf(big.id)).toBe(8e15);
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 300 }).where('id', '=', serverId).execute();
      }
      await expectAudit();
    });

    it('a batch priced past what a JSON number carries once the fee was raised still shows on the page, and comes back whole when deleted', async () => {
      const big = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, big.id, serverId);
      const nominal = 8_700_000_000_000_000;
      const paid = BigInt(price(nominal, 300));
      await fund(t.db.kysely, w, paid);
      const created = await call('POST', '/api/pricekods/', big, { gamesserver_id: serverId, nominal, count: 1 });
      expect(created.statusCode).toBe(200);
      const id = created.json().success.id;
      // An operator raises the fee (a VIP period running out does the same): one more code would now cost past 2^53 − 1.
      await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 500 }).where('id', '=', serverId).execute();
      try {
        const page = await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, big);
        expect(page.statusCode).toBe(200);
        expect(page.json().pricekods.find((v: { id: number }) => v.id === id)).toMatchObject({ nominal, price: Number.MAX_SAFE_INTEGER, open_count: 1 });
        const removed = await call('DELETE', `/api/pricekods/${id}`, big);
        expect(removed.statusCode).toBe(200);
        expect(removed.json().summa).toBe(Number(paid));
        expect(await balanceOf(big.id)).toBe(Number(paid));
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 300 }).where('id', '=', serverId).execute();
      }
      await expectAudit();
    });

    it('charges a batch at the price per code the player confirmed or not at all: after a fee change, 409 with the new price', async () => {
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId);
      await fund(t.db.kysely, w, 100n * BigInt(KK));
      const old = price(2 * KK, 300);
      await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 500 }).where('id', '=', serverId).execute();
      try {
        const stale = await call('POST', '/api/pricekods/', p, { gamesserver_id: serverId, nominal: 2 * KK, count: 3, price: old });
        expect(stale.statusCode).toBe(409);
        expect(stale.json()).toMatchObject({ price: price(2 * KK, 500) });
        expect(await balanceOf(p.id)).toBe(100 * KK);
        expect(await t.db.kysely.selectFrom('pricekods').select('id').where('user_id', '=', p.id).execute()).toEqual([]);
        const made = await call('POST', '/api/pricekods/', p, { gamesserver_id: serverId, nominal: 2 * KK, count: 3, price: price(2 * KK, 500) });
        expect(made.json().summa).toBe(3 * price(2 * KK, 500));
        const id = made.json().success.id;
        // An edit confirms its price too; nothing moves when it is stale.
        const staleEdit = await call('PUT', `/api/pricekods/${id}`, p, { gamesserver_id: serverId, nominal: 2 * KK, count: 5, price: old });
        expect(staleEdit.statusCode).toBe(409);
        expect(await balanceOf(p.id)).toBe(100 * KK - 3 * price(2 * KK, 500));
        expect((await call('PUT', `/api/pricekods/${id}`, p, { gamesserver_id: serverId, nominal: 2 * KK, count: 5 })).json().summa).toBe(2 * price(2 * KK, 500));
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 300 }).where('id', '=', serverId).execute();
      }
      await expectAudit();
    });

    it('makes a batch smaller (a refund only) after a fee change, a raised minimum nominal or the server hidden: nothing is bought, so no rule of buying refuses it', async () => {
      // Review finding: the refund-only edit was asked to confirm today's price (409 «…оплатите ещё раз»), was held
      // to a minimum raised since (422 on a nominal not touched) and 404'd on a hidden server, where the batch's
      // removal and single cancels still refunded.
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId);
      await fund(t.db.kysely, w, 100n * BigInt(KK));
      const paid = price(2 * KK, 300);
      const made = await call('POST', '/api/pricekods/', p, { gamesserver_id: serverId, nominal: 2 * KK, count: 6, price: paid });
      expect(made.statusCode).toBe(200);
      const id = made.json().success.id;
      const server = await t.db.kysely.selectFrom('gamesservers').select(['code_fee_bp', 'min_nominal']).where('id', '=', serverId).executeTakeFirstOrThrow();
      const changes = [{ code_fee_bp: 500 }, { min_nominal: BigInt(3 * KK) }, { active: false }];
      try {
        for (const [i, change] of changes.entries()) {
          await t.db.kysely.updateTable('gamesservers').set(change).where('id', '=', serverId).execute();
          const before = await balanceOf(p.id);
          const smaller = await call('PUT', `/api/pricekods/${id}`, p, { gamesserver_id: serverId, nominal: 2 * KK, count: 5 - i, price: paid });
          expect(smaller.statusCode).toBe(200);
          expect(smaller.json().summa).toBe(-paid);
          expect(await balanceOf(p.id)).toBe(before + paid);
          // Buying more is still held to today's rules.
          const more = await call('PUT', `/api/pricekods/${id}`, p, { gamesserver_id: serverId, nominal: 2 * KK, count: 6, price: paid });
          expect(more.statusCode).toBe([409, 422, 404][i]);
          expect(await balanceOf(p.id)).toBe(before + paid);
        }
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ ...server, active: true }).where('id', '=', serverId).execute();
      }
      await expectAudit();
    });

    it('answers 409 low_cap when the batch does not fit the balance', async () => {
      const poor = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, poor.id, serverId);
      await fund(t.db.kysely, w, 5n * BigInt(KK));
      const res = await call('POST', '/api/pricekods/', poor, { gamesserver_id: serverId, nominal: KK, count: 5 });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ low_cap: true, errors: { count: ['Недостаточно средств на балансе'] } });
      expect(await t.db.kysely.selectFrom('pricekods').select('id').where('user_id', '=', poor.id).execute()).toEqual([]);
      // An edit that adds codes past the balance names the count too, and leaves the batch as it was.
      const made = await call('POST', '/api/pricekods/', poor, { gamesserver_id: serverId, nominal: KK, count: 2 });
      expect(made.statusCode, made.body).toBe(200);
      const more = await call('PUT', `/api/pricekods/${made.json().success.id}`, poor, { gamesserver_id: serverId, nominal: KK, count: 5 });
      expect(more.statusCode).toBe(409);
      expect(more.json()).toMatchObject({ low_cap: true, errors: { count: ['Недостаточно средств на балансе'] } });
      expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', poor.id).execute()).toHaveLength(2);
    });

    it('lists a batch’s open codes even when the seller holds OPEN_CODES_LIMIT newer single codes (a limit per list)', async () => {
      const stocked = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, stocked.id, serverId);
      await fund(t.db.kysely, w, 10n * BigInt(KK));
      const batch = await call('POST', '/api/pricekods/', stocked, { gamesserver_id: serverId, nominal: KK, count: 5 });
      expect(batch.statusCode).toBe(200);
      // Newer single codes past the limit (a seller's stock issued through the API), written straight to the table
      // and removed afterwards, so the server's escrow is as the ledger says for the tests after this one.
      await sql`INSERT INTO codes (sert, user_id, wallet_id, gamesserver_id, nominal, fee, price)
                SELECT 'ZZLIMIT-' || n, ${stocked.id}, ${w.id}, ${serverId}, 1000, 0, 1000
                  FROM generate_series(1, ${OPEN_CODES_LIMIT}) AS n`.execute(t.db.kysely);
      try {
        const data: AuthPriceData = (await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, stocked)).json();
        expect(data.pricekods).toMatchObject([{ id: batch.json().success.id, open_count: 5 }]);
        expect(data.svoy_variant_kods).toHaveLength(5);
        expect(data.kods).toHaveLength(OPEN_CODES_LIMIT);
        expect(data.kods.every((k) => k.sert.startsWith('ZZLIMIT-'))).toBe(true);
      } finally {
        await t.db.kysely.deleteFrom('codes').where('sert', 'like', 'ZZLIMIT-%').execute();
      }
      await expectAudit();
    });
  });
});
