import { currencyWord, formatAmount } from '@adena/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { hashToken, newToken } from '../../lib/tokens';
import { auditLedger, post, serviceAccount, walletAccount } from '../ledger/ledger.service';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('wallets, deposits, withdrawals and the operators queue on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let otherServerId: number;
  let admin: Player;
  const call = (method: 'GET' | 'POST', url: string, who?: Player, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { ...(who?.auth ?? {}), ...headers }, ...(payload ? { payload } : {}) });
  const wallet = (userId: number, sid = serverId) =>
    t.db.kysely.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('gamesserver_id', '=', sid).executeTakeFirstOrThrow();
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  /** A player with a nick on the first server and `adena` on their wallet. */
  const playerWith = async (adena = 0n, coins = 0n) => {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    if (adena) await fund(t.db.kysely, w, adena, 1);
    if (coins) await fund(t.db.kysely, w, coins, 2);
    return p;
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    otherServerId = (await t.db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', serverId).orderBy('id').executeTakeFirstOrThrow()).id;
    admin = await createUser(t.db.kysely, { admin: true });
  });
  afterAll(() => t.close());

  describe('deposits', () => {
    it.runIf(kind === 'postgres')('a decision committed while the history is read is on the page or keeps History\'s dot lit, never lost unseen', async () => {
      const p = await playerWith();
      const req = (await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 })).json().success;
      await t.db.kysely.updateTable('wallets').set({ new_message: true }).where('user_id', '=', p.id).execute();
      // An operator's rejection has written the request and the player's dot, and has not committed yet.
      const hold = await holdLocks(t.db.kysely, async (trx) => {
        await trx.updateTable('balance_requests').set({ status: 'rejected', comment: 'Перевода нет', processed_at: new Date() }).where('id', '=', req.id).execute();
        await trx.updateTable('wallets').set({ new_message: true }).where('user_id', '=', p.id).execute();
      });
      const reading = call('GET', `/api/get_user_input_output_balance?gamesserver_id=${serverId}`, p);
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%wallets%')) === 1 ? true : undefined), 'the history call waiting for the wallet');
      await hold.release();
      const page = (await reading).json();
      const shown = page.data.find((r: { id: number }) => r.id === req.id)?.status === 'rejected';
      expect(shown || (await wallet(p.id)).new_message).toBe(true);
    });

    it.runIf(kind === 'postgres')('two history reads of one player (one server, all servers) racing a movement on the wallet both answer (no deadlock)', async () => {
      const p = await createUser(t.db.kysely);
      const servers = await t.db.kysely.selectFrom('gamesservers').select('id').where('active', '=', true).orderBy('id').limit(2).execute();
      const w1 = await createWallet(t.db.kysely, p.id, servers[0]!.id, 'One');
      await createWallet(t.db.kysely, p.id, servers[1]!.id, 'Two');
      await t.db.kysely.updateTable('wallets').set({ new_message: true }).where('user_id', '=', p.id).execute();
      // A write referring to the wallet (a foreign-key check's key-share lock), and a movement of it not yet committed.
      const keyShare = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('wallets').select('id').where('id', '=', w1.id).forKeyShare().execute());
      const movement = await holdLocks(t.db.kysely, (trx) => trx.updateTable('wallets').set({ new_message: true }).where('id', '=', w1.id).execute());
      const one = call('GET', `/api/get_user_input_output_balance?gamesserver_id=${servers[0]!.id}`, p);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the first read to wait for the wallet');
      const all = call('GET', '/api/get_user_input_output_balance', p);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the second read to wait for the wallet');
      await movement.release();
      // A moment for the reads to move on to the key-share lock (as one statement, a read then locked again from its
      // older snapshot and queued behind the other, which waited for it: a deadlock). Both answer whatever the timing.
      await new Promise((r) => setTimeout(r, 50));
      await keyShare.release();
      const [a, b] = await Promise.all([one, all]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect((await t.db.kysely.selectFrom('wallets').select('new_message').where('user_id', '=', p.id).execute()).map((w) => w.new_message)).toEqual([false, false]);
    });

    it('is pending with the cashier nick until an operator completes it, then credits once', async () => {
      const p = await playerWith();
      const res = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 });
      expect(res.statusCode).toBe(200);
      const request = res.json().success;
      expect(request).toMatchObject({ type: 'input', currency_type: 1, amount: 3 * KK, status: 'pending', nick: 'Hero', cashier_nick: expect.any(String) });
      expect(Number((await wallet(p.id)).balance)).toBe(0);

      const done = await call('POST', `/api/admin/requests/${request.id}/complete`, admin, {});
      expect(done.statusCode).toBe(200);
      expect(done.json().success).toMatchObject({ id: request.id, status: 'completed', processed_by: admin.id, user: { id: p.id } });
      // Decided without a claim: the queue names the operator all the same.
      const listed = (await call('GET', '/api/admin/requests?status=completed&per_page=100', admin)).json().data;
      const adminName = (await t.db.kysely.selectFrom('users').select('name').where('id', '=', admin.id).executeTakeFirstOrThrow()).name;
      expect(listed.find((r: { id: number }) => r.id === request.id)).toMatchObject({ processed_by: admin.id, processed_by_name: adminName, claimed_by: null });
      const w = await wallet(p.id);
      expect(Number(w.balance)).toBe(3 * KK);
      expect(w.new_message).toBe(true);

      const again = await call('POST', `/api/admin/requests/${request.id}/complete`, admin, {});
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe('Заявка уже обработана');
      expect(Number((await wallet(p.id)).balance)).toBe(3 * KK);

      const audit = await t.db.kysely.selectFrom('admin_audit_log').selectAll().where('entity_type', '=', 'balance_request').where('entity_id', '=', String(request.id)).execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ admin_id: admin.id, action: 'request.complete' });
      expect(audit[0]!.before).toMatchObject({ status: 'pending' });
      expect(audit[0]!.after).toMatchObject({ status: 'completed', processed_by: admin.id });

      // Reading the history reads the notice.
      const history = (await call('GET', `/api/get_user_input_output_balance?gamesserver_id=${serverId}`, p)).json();
      expect(history.data[0]).toMatchObject({ id: request.id, status: 'completed' });
      expect((await wallet(p.id)).new_message).toBe(false);
      await expectAudit();
    });

    it('credits coins through the second-currency call', async () => {
      const p = await playerWith();
      const res = await call('POST', '/api/up_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 250, currency_type: 2 });
      expect(res.statusCode).toBe(200);
      expect(res.json().success).toMatchObject({ currency_type: 2, amount: 250 });
      await call('POST', `/api/admin/requests/${res.json().success.id}/complete`, admin, {});
      const w = await wallet(p.id);
      expect([Number(w.balance), Number(w.balance_second)]).toEqual([0, 250]);
    });

    it('refuses what the player cannot mean: no nick, outside the limits, a currency the path does not name', async () => {
      const noNick = await createUser(t.db.kysely);
      const r1 = await call('POST', '/api/up_balance_user/', noNick, { gamesserver_id: serverId, amount: 3 * KK });
      expect(r1.statusCode).toBe(422);
      expect(r1.json().errors.nick[0]).toMatch(/ник/);
      const p = await playerWith();
      const low = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 10 });
      expect(low.statusCode).toBe(422);
      expect(low.json().errors.amount[0]).toMatch(/^От 1 000 000 до 10 000 000 000 аден$/);
      const mismatch = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 2 });
      expect(mismatch.statusCode).toBe(422);
      const junk = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: 'x', amount: -1 });
      expect(junk.statusCode).toBe(422);
      expect(Object.keys(junk.json().errors).sort()).toEqual(['amount', 'gamesserver_id']);
      expect(await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', 'in', [noNick.id, p.id]).execute()).toEqual([]);
    });

    it('takes nothing in a currency the server\u2019s settings hold no limits for (a missing limit is not "no limit")', async () => {
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, otherServerId, 'Hero');
      await fund(t.db.kysely, w, 100n * BigInt(KK), 1);
      await fund(t.db.kysely, w, 1000n, 2);
      const before = await t.db.kysely.selectFrom('gamesservers').select('limits').where('id', '=', otherServerId).executeTakeFirstOrThrow();
      const limits = JSON.parse(JSON.stringify(before.limits)) as { input: Record<string, unknown>; output: Record<string, unknown> };
      delete limits.output['2'];
      delete (limits.input['1'] as { min?: number }).min; // half a limit is none either
      await t.db.kysely.updateTable('gamesservers').set({ limits: JSON.stringify(limits) }).where('id', '=', otherServerId).execute();
      try {
        const out = await call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: otherServerId, amount: 10 });
        const into = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: otherServerId, amount: 3 * KK });
        for (const res of [out, into]) {
          expect(res.statusCode).toBe(422);
          expect(res.json().errors.amount).toEqual(['Сейчас этот сервер не принимает такие заявки']);
        }
        expect(await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', p.id).execute()).toEqual([]);
        const after = await wallet(p.id, otherServerId);
        expect([after.balance, after.balance_second]).toEqual([100n * BigInt(KK), 1000n]);
        // The directions that have limits still work.
        expect((await call('POST', '/api/down_balance_user/', p, { gamesserver_id: otherServerId, amount: 2 * KK })).statusCode).toBe(200);
      } finally {
        await t.db.kysely.updateTable('gamesservers').set({ limits: JSON.stringify(before.limits) }).where('id', '=', otherServerId).execute();
      }
      await expectAudit();
    });

    it('answers 422 in Russian to every bad amount on every money call, never 500', async () => {
      const p = await playerWith(10n * BigInt(KK), 10n);
      const bad: unknown[] = [-1, 0, 1.5, '1кк', 'сто', null, 2 ** 53, 1e300, 10 ** 16, true, [], {}];
      const urls = ['/api/up_balance_user/', '/api/up_balance_user_second_currency/', '/api/down_balance_user/', '/api/down_balance_user_second_currency/'];
      for (const url of urls) {
        for (const amount of bad) {
          const res = await call('POST', url, p, { gamesserver_id: serverId, amount });
          expect(res.statusCode, `${url} ${JSON.stringify(amount)}`).toBe(422);
          expect(res.json().errors.amount[0], `${url} ${JSON.stringify(amount)}`).toMatch(/[а-яё]/i);
        }
        // Beyond the server's limits is a 422 too, naming them.
        const over = await call('POST', url, p, { gamesserver_id: serverId, amount: 2 ** 52 });
        expect(over.statusCode).toBe(422);
        expect(over.json().errors.amount[0]).toMatch(/^От /);
      }
      expect(await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', p.id).execute()).toEqual([]);
      const w = await wallet(p.id);
      expect([Number(w.balance), Number(w.balance_second)]).toEqual([10 * KK, 10]);
    });

    it('a rejected deposit moves nothing and tells the player why', async () => {
      const p = await playerWith();
      const { id } = (await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
      const noReason = await call('POST', `/api/admin/requests/${id}/reject`, admin, { reason: ' ' });
      expect(noReason.statusCode).toBe(422);
      expect(noReason.json().errors.reason).toEqual(['Укажите причину']);
      const res = await call('POST', `/api/admin/requests/${id}/reject`, admin, { reason: 'Передача не пришла' });
      expect(res.json().success).toMatchObject({ status: 'rejected', comment: 'Передача не пришла' });
      expect(Number((await wallet(p.id)).balance)).toBe(0);
      const history = (await call('GET', '/api/get_user_input_output_balance', p)).json();
      expect(history.data[0]).toMatchObject({ id, status: 'rejected', comment: 'Передача не пришла' });
    });
  });

  describe('withdrawals', () => {
    it('holds the amount at once, and pays it out on completion', async () => {
      const p = await playerWith(10n * BigInt(KK));
      const res = await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 4 * KK, currency_type: 1 });
      expect(res.statusCode).toBe(200);
      expect(res.json().success).toMatchObject({ type: 'output', status: 'pending', amount: 4 * KK, enter_currency: 4 * KK });
      expect(Number((await wallet(p.id)).balance)).toBe(6 * KK);
      await expectAudit();
      await call('POST', `/api/admin/requests/${res.json().success.id}/complete`, admin, {});
      expect(Number((await wallet(p.id)).balance)).toBe(6 * KK);
      await expectAudit();
    });

    it('answers 409 with low_cap and moves nothing when the balance is short', async () => {
      const p = await playerWith(2n * BigInt(KK), 5n);
      const res = await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ low_cap: true, message: 'Недостаточно средств на балансе', errors: { amount: ['Недостаточно средств на балансе'] } });
      const coins = await call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 6, currency_type: 2 });
      expect(coins.statusCode).toBe(409);
      expect(coins.json().low_cap).toBe(true);
      const w = await wallet(p.id);
      expect([Number(w.balance), Number(w.balance_second)]).toEqual([2 * KK, 5]);
      expect(await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', p.id).execute()).toEqual([]);
    });

    it('refunds a rejected withdrawal and one the player cancels, once', async () => {
      const p = await playerWith(10n * BigInt(KK), 100n);
      const a = (await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 4 * KK })).json().success;
      const b = (await call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 60 })).json().success;
      expect(Number((await wallet(p.id)).balance_second)).toBe(40);
      await call('POST', `/api/admin/requests/${a.id}/reject`, admin, { reason: 'Персонаж не в игре' });
      expect(Number((await wallet(p.id)).balance)).toBe(10 * KK);
      const cancelled = await call('POST', '/api/delete_request/', p, { id: b.id });
      expect(cancelled.json()).toEqual({ success: b.id });
      expect(Number((await wallet(p.id)).balance_second)).toBe(100);
      const twice = await call('POST', '/api/delete_request/', p, { id: b.id });
      expect(twice.statusCode).toBe(409);
      expect(twice.json().message).toBe('Заявка уже отменена');
      const late = await call('POST', `/api/admin/requests/${b.id}/complete`, admin, {});
      expect(late.statusCode).toBe(409);
      expect(Number((await wallet(p.id)).balance_second)).toBe(100);
      await expectAudit();
    });
  });

  describe('history', () => {
    it('pages newest first, filters by server, and hides only finished entries', async () => {
      const p = await playerWith(100n * BigInt(KK));
      await createWallet(t.db.kysely, p.id, otherServerId, 'Hero');
      const ids: number[] = [];
      for (let i = 1; i <= 12; i++) {
        const res = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: i === 12 ? otherServerId : serverId, amount: i * KK });
        ids.push(res.json().success.id);
        // A player may have only 5 deposits pending per server: the middle ones are cancelled.
        if (i > 1 && i < 12) expect((await call('POST', '/api/delete_request/', p, { id: res.json().success.id })).statusCode).toBe(200);
      }
      const page1 = (await call('GET', '/api/get_user_input_output_balance', p)).json();
      expect(page1.total).toBe(12);
      expect(page1.data.map((r: { id: number }) => r.id)).toEqual(ids.slice(2).reverse());
      const page2 = (await call('GET', '/api/get_user_input_output_balance?page=2&per_page=10', p)).json();
      expect(page2.data.map((r: { id: number }) => r.id)).toEqual([ids[1], ids[0]]);
      const one = (await call('GET', `/api/get_user_input_output_balance?gamesserver_id=${otherServerId}`, p)).json();
      expect(one).toMatchObject({ total: 1, data: [{ id: ids[11], gamesserver_id: otherServerId }] });

      const pending = await call('GET', `/api/delete_balance_user/${ids[0]}`, p);
      expect(pending.statusCode).toBe(409);
      expect(pending.json().message).toMatch(/отмените/);
      await call('POST', '/api/delete_request/', p, { id: ids[0] });
      const hidden = await call('GET', `/api/delete_balance_user/${ids[0]}`, p);
      expect(hidden.json()).toEqual({ success: ids[0] });
      const after = (await call('GET', '/api/get_user_input_output_balance?page=2', p)).json();
      expect(after.total).toBe(11);
      expect(after.data.map((r: { id: number }) => r.id)).toEqual([ids[1]]);

      const bad = await call('GET', '/api/get_user_input_output_balance?page=0&per_page=1000', p);
      expect(bad.statusCode).toBe(422);
      expect(Object.keys(bad.json().errors).sort()).toEqual(['page', 'per_page']);
    });
  });

  describe('owners and outsiders', () => {
    it("never touches another player's request or shows it", async () => {
      const owner = await playerWith(10n * BigInt(KK));
      const thief = await playerWith();
      const req = (await call('POST', '/api/down_balance_user/', owner, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
      const row = () => t.db.kysely.selectFrom('balance_requests').select(['user_id', 'status', 'hidden_at', 'processed_at']).where('id', '=', req.id).executeTakeFirstOrThrow();
      // The withdrawal holds 2кк of the owner's 10кк until it is decided.
      expect(Number((await wallet(owner.id)).balance)).toBe(8 * KK);
      const cancel = await call('POST', '/api/delete_request/', thief, { id: req.id });
      expect(cancel.statusCode).toBe(404);
      expect(cancel.json().message).toBe('Заявка не найдена');
      expect((await call('GET', `/api/delete_balance_user/${req.id}`, thief)).statusCode).toBe(404);
      // The owner's request is still pending and shown, and the hold was not returned (nor twice later).
      expect(await row()).toEqual({ user_id: owner.id, status: 'pending', hidden_at: null, processed_at: null });
      expect(Number((await wallet(owner.id)).balance)).toBe(8 * KK);
      expect((await call('POST', '/api/delete_request/', owner, { id: req.id })).statusCode).toBe(200);
      expect(Number((await wallet(owner.id)).balance)).toBe(10 * KK);
      // Finished, the request could be hidden, but only by its owner.
      const hide = await call('GET', `/api/delete_balance_user/${req.id}`, thief);
      expect(hide.statusCode).toBe(404);
      expect(hide.json().message).toBe('Заявка не найдена');
      expect(await row()).toMatchObject({ user_id: owner.id, status: 'cancelled', hidden_at: null });
      expect((await call('GET', '/api/get_user_input_output_balance', thief)).json()).toEqual({ data: [], total: 0 });
      const ownerHistory = (await call('GET', '/api/get_user_input_output_balance', owner)).json();
      expect(ownerHistory.data[0]).toMatchObject({ id: req.id, status: 'cancelled' });
      expect((await call('GET', '/api/wallets', thief)).json().map((w: { id: number }) => w.id)).toEqual([(await wallet(thief.id)).id]);
    });

    it('answers 401 to anonymous callers of every player call and 403 to players on the queue', async () => {
      const calls: Array<['GET' | 'POST', string, object?]> = [
        ['GET', '/api/wallets'],
        ['POST', '/api/save_nick/', { gamesserver_id: serverId, nick: 'Hero' }],
        ['GET', '/api/get_user_input_output_balance'],
        ['POST', '/api/up_balance_user/', { gamesserver_id: serverId, amount: KK }],
        ['POST', '/api/up_balance_user_second_currency/', { gamesserver_id: serverId, amount: 1 }],
        ['POST', '/api/down_balance_user/', { gamesserver_id: serverId, amount: KK }],
        ['POST', '/api/down_balance_user_second_currency/', { gamesserver_id: serverId, amount: 1 }],
        ['POST', '/api/delete_request/', { id: 1 }],
        ['GET', '/api/delete_balance_user/1'],
      ];
      for (const [method, url, payload] of calls) {
        const res = await call(method, url, undefined, payload);
        expect(res.statusCode, url).toBe(401);
        expect(res.json().errors).toBeUndefined();
      }
      const p = await playerWith();
      expect((await call('GET', '/api/admin/requests', p)).statusCode).toBe(403);
    });

    it('refuses an unknown, expired, realtime or blocked bearer on every deposit and withdrawal with 401, also with a bad body or a key, and moves nothing', async () => {
      const p = await playerWith(10n * BigInt(KK), 10n);
      const before = await wallet(p.id);
      const bearer = async (kind: 'access' | 'realtime', expiresAt: Date | null) => {
        const token = newToken();
        await t.db.kysely.insertInto('tokens').values({ user_id: p.id, kind, token_hash: hashToken(token), expires_at: expiresAt }).execute();
        return { authorization: `Bearer ${token}` };
      };
      const blocked = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, blocked.id, serverId, 'Hero');
      await t.db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', blocked.id).execute();
      const bearers = {
        unknown: { authorization: `Bearer ${newToken()}` },
        expired: await bearer('access', new Date(Date.now() - 1000)),
        realtime: await bearer('realtime', new Date(Date.now() + 60_000)),
        blocked: blocked.auth,
      };
      const paths = ['/api/up_balance_user/', '/api/up_balance_user_second_currency/', '/api/down_balance_user/', '/api/down_balance_user_second_currency/'];
      for (const [name, auth] of Object.entries(bearers)) {
        for (const path of paths) {
          for (const [variant, payload, extra] of [
            ['plain', { gamesserver_id: serverId, amount: KK }, {}],
            ['bad body', { gamesserver_id: serverId, amount: -1 }, {}],
            ['keyed', { gamesserver_id: serverId, amount: KK }, { 'idempotency-key': `k-${name}-${path}` }],
            ['bad key', { gamesserver_id: serverId, amount: KK }, { 'idempotency-key': 'x'.repeat(101) }],
          ] as const) {
            const res = await t.app.inject({ method: 'POST', url: path, headers: { ...auth, ...extra }, payload });
            expect(res.statusCode, `${name} ${path} ${variant}`).toBe(401);
            expect(res.json()).toEqual({ message: expect.stringMatching(/вход/i) });
          }
        }
      }
      expect(await wallet(p.id)).toEqual(before);
      const opened = await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', 'in', [p.id, blocked.id]).execute();
      expect(opened).toEqual([]);
      // The same player's live token still opens a withdrawal.
      expect((await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: KK })).statusCode).toBe(200);
      await expectAudit();
    });
  });

  describe('idempotency and realtime', () => {
    it('a retried withdrawal with the same Idempotency-Key holds once and answers the same', async () => {
      const p = await playerWith(10n * BigInt(KK));
      const key = { 'idempotency-key': `w-${p.id}` };
      const a = await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK }, key);
      const b = await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK }, key);
      expect(b.statusCode).toBe(200);
      expect(b.json()).toEqual(a.json());
      expect(Number((await wallet(p.id)).balance)).toBe(7 * KK);
      const other = await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 1 * KK }, key);
      expect(other.statusCode).toBe(409);
      expect(other.json().message).toBe('Этот запрос уже отправлялся с другими данными: проверьте историю, не прошёл ли первый, и отправьте снова');
      expect(Number((await wallet(p.id)).balance)).toBe(7 * KK);
    });

    it('replays a keyed deposit or withdrawal without telling anyone again, and lets a refused one be retried as new', async () => {
      const sent: number[] = [];
      const spy = vi.spyOn(t.app.deps.realtime, 'publish').mockImplementation((userId) => void sent.push(userId));
      try {
        const p = await playerWith(2n * BigInt(KK));
        const keyed = (path: string, amount: number, key: string) => call('POST', path, p, { gamesserver_id: serverId, amount }, { 'idempotency-key': key });
        const dep = await keyed('/api/up_balance_user/', 5 * KK, 'd1');
        expect(sent).toEqual([p.id]);
        const depAgain = await keyed('/api/up_balance_user/', 5 * KK, 'd1');
        expect(depAgain.json()).toEqual(dep.json());
        expect(await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', p.id).execute()).toEqual([{ id: dep.json().success.id }]);
        // Too much: refused, and the key is free again for the same call once the balance allows it.
        expect((await keyed('/api/down_balance_user/', 3 * KK, 'w1')).json()).toMatchObject({ low_cap: true });
        expect(sent).toEqual([p.id]);
        await fund(t.db.kysely, await wallet(p.id), 1n * BigInt(KK));
        const w = await keyed('/api/down_balance_user/', 3 * KK, 'w1');
        expect(w.statusCode).toBe(200);
        expect(sent).toEqual([p.id, p.id]);
        expect((await keyed('/api/down_balance_user/', 3 * KK, 'w1')).json()).toEqual(w.json());
        expect(sent).toEqual([p.id, p.id]);
        expect(Number((await wallet(p.id)).balance)).toBe(0);
        await expectAudit();
      } finally {
        spy.mockRestore();
      }
    });

    it('records one Telegram notice when a withdrawal of adena crosses the player’s limit, none for coins', async () => {
      const p = await playerWith(10n * BigInt(KK), 20_000n);
      const set = await call('POST', '/api/add_limit_otvetka/', p, { gamesserver_id: serverId, telegram_price: 5 * KK });
      expect(set.statusCode).toBe(200);
      const notices = () => t.db.kysely.selectFrom('telegram_notices').select(['threshold', 'balance', 'status', 'text']).where('user_id', '=', p.id).execute();
      const withdraw = (amount: number, currency_type: 1 | 2 = 1) =>
        call('POST', currency_type === 1 ? '/api/down_balance_user/' : '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount, currency_type });
      expect((await withdraw(4 * KK)).statusCode).toBe(200); // 10 → 6: above the limit
      expect(await notices()).toEqual([]);
      expect((await withdraw(2 * KK)).statusCode).toBe(200); // → 4: crosses
      expect((await withdraw(1 * KK)).statusCode).toBe(200); // → 3: still below, nothing new
      expect((await withdraw(19_000, 2)).statusCode).toBe(200); // coins: the limit is in adena only
      // No chat is linked, so the notice is kept as 'no_chat'; its text names the limit and the balance.
      expect(await notices()).toEqual([
        { threshold: BigInt(5 * KK), balance: BigInt(4 * KK), status: 'no_chat', text: expect.stringContaining('ниже 5\u00a0000\u00a0000 аден: сейчас 4\u00a0000\u00a0000 аден') },
      ]);
      await expectAudit();
    });

    it('writes the notice in Russian for any balance: the limit in the genitive, the balance in the nominative, as the web app writes them', async () => {
      const p = await playerWith(6n * BigInt(KK) + 2n, 0n);
      await call('POST', '/api/add_limit_otvetka/', p, { gamesserver_id: serverId, telegram_price: 5 * KK + 21 });
      expect((await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: KK, currency_type: 1 })).statusCode).toBe(200);
      const [notice] = await t.db.kysely.selectFrom('telegram_notices').select('text').where('user_id', '=', p.id).execute();
      expect(notice!.text).toContain('ниже 5\u00a0000\u00a0021 адены: сейчас 5\u00a0000\u00a0002 адены.');
      // The SQL twins of currencyWord and formatAmount agree with them on every ending.
      const values = [0, 1, 2, 4, 5, 11, 12, 14, 15, 21, 22, 25, 101, 111, 112, 121, 1000, 4_000_002, 9_007_199_254_740_993n];
      for (const v of values) {
        const { rows } = await sql<{ gen: string; nom: string; grouped: string }>`SELECT adena_word(${BigInt(v)}::bigint, 'gen') AS gen, adena_word(${BigInt(v)}::bigint, 'nom') AS nom, grouped_amount(${BigInt(v)}::bigint) AS grouped`.execute(t.db.kysely);
        expect(rows[0], String(v)).toEqual({ gen: currencyWord(v, 1, 'gen'), nom: currencyWord(v, 1, 'nom'), grouped: formatAmount(v, '\u00a0') });
      }
    });

    it.runIf(kind === 'postgres')('a deposit opened or cancelled while a movement of its wallet commits tells the balance after that movement', async () => {
      const p = await playerWith(5n * BigInt(KK));
      const w = await wallet(p.id);
      const sent: Array<{ name: string; data: unknown }> = [];
      const spy = vi.spyOn(t.app.deps.realtime, 'publish').mockImplementation((_userId, name, data) => void sent.push({ name, data }));
      /** A credit of 1кк to the wallet, written and committed only once `call` waits for the wallet's row. */
      const creditedDuring = async (call: () => Promise<{ statusCode: number }>) => {
        const credit = await holdLocks(t.db.kysely, (trx) =>
          post(trx, {
            kind: 'test_funding',
            legs: [
              { account: walletAccount(w.id, serverId, 1), amount: BigInt(KK) },
              { account: serviceAccount('cash', serverId, 1), amount: -BigInt(KK) },
            ],
          }),
        );
        const answer = call();
        await waitFor(async () => ((await lockWaits(t.db.kysely, '%')) === 1 ? true : undefined), 'the call waiting for the wallet');
        await credit.release();
        expect((await answer).statusCode).toBe(200);
      };
      try {
        let id = 0;
        await creditedDuring(async () => {
          const r = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK });
          id = r.json().success.id;
          return r;
        });
        expect(sent).toEqual([{ name: 'balance', data: { gamesserver_id: serverId, balance: 6 * KK, balance_second: 0 } }]);
        sent.length = 0;
        await creditedDuring(() => call('POST', '/api/delete_request/', p, { id }));
        expect(sent).toEqual([{ name: 'balance', data: { gamesserver_id: serverId, balance: 7 * KK, balance_second: 0 } }]);
        await expectAudit();
      } finally {
        spy.mockRestore();
      }
    });

    it('tells the owner the new balances after commit, and nothing for a refused call', async () => {
      const sent: Array<{ userId: number; name: string; data: unknown }> = [];
      const spy = vi.spyOn(t.app.deps.realtime, 'publish').mockImplementation((userId, name, data) => void sent.push({ userId, name, data }));
      try {
        const p = await playerWith(5n * BigInt(KK), 7n);
        // A deposit opened or cancelled moves no balance; the event still reaches the player's other devices, whose
        // open history then lists it (or drops it) at once.
        const unchanged = { userId: p.id, name: 'balance', data: { gamesserver_id: serverId, balance: 5 * KK, balance_second: 7 } };
        const dropped = (await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
        expect((await call('POST', '/api/delete_request/', p, { id: dropped.id })).statusCode).toBe(200);
        expect(sent).toEqual([unchanged, unchanged]);
        sent.length = 0;
        expect((await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 1 })).statusCode).toBe(422);
        expect(sent).toEqual([]);
        const dep = (await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
        expect(sent).toEqual([unchanged]);
        sent.length = 0;
        await call('POST', `/api/admin/requests/${dep.id}/complete`, admin, {});
        const decided = (r: { id: number }, type: 'input' | 'output', status: string, amount: number, comment: string | null = null) => ({
          userId: p.id,
          name: 'request_status',
          data: { id: r.id, type, status, amount, currency_type: 1, gamesserver_id: serverId, comment },
        });
        expect(sent).toEqual([
          { userId: p.id, name: 'balance', data: { gamesserver_id: serverId, balance: 7 * KK, balance_second: 7 } },
          decided(dep, 'input', 'completed', 2 * KK),
        ]);
        sent.length = 0;
        const w = (await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK })).json().success;
        expect(sent).toEqual([{ userId: p.id, name: 'balance', data: { gamesserver_id: serverId, balance: 4 * KK, balance_second: 7 } }]);
        sent.length = 0;
        expect((await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 9 * KK })).statusCode).toBe(409);
        expect(sent).toEqual([]);
        await call('POST', `/api/admin/requests/${w.id}/reject`, admin, { reason: 'нет' });
        expect(sent).toEqual([
          { userId: p.id, name: 'balance', data: { gamesserver_id: serverId, balance: 7 * KK, balance_second: 7 } },
          decided(w, 'output', 'rejected', 3 * KK, 'нет'),
        ]);
        // Decisions that move no balance still tell the player, so an open history shows them at once.
        const refused = (await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })).json().success;
        sent.length = 0;
        await call('POST', `/api/admin/requests/${refused.id}/reject`, admin, { reason: 'Передача не найдена' });
        expect(sent).toEqual([
          { userId: p.id, name: 'balance', data: { gamesserver_id: serverId, balance: 7 * KK, balance_second: 7 } },
          decided(refused, 'input', 'rejected', 2 * KK, 'Передача не найдена'),
        ]);
        const paid = (await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 1 * KK })).json().success;
        sent.length = 0;
        await call('POST', `/api/admin/requests/${paid.id}/complete`, admin, {});
        expect(sent).toEqual([
          { userId: p.id, name: 'balance', data: { gamesserver_id: serverId, balance: 6 * KK, balance_second: 7 } },
          decided(paid, 'output', 'completed', 1 * KK),
        ]);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
