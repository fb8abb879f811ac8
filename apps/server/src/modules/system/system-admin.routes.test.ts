import type { AdminGamesserver } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;

const newServer = (name: string) => ({
  name,
  active: true,
  sort_order: 10,
  cashier_nick: 'Kassir',
  limits: {
    input: { '1': { min: KK, max: 1000 * KK }, '2': { min: 1, max: 1000 } },
    output: { '1': { min: KK, max: 500 * KK }, '2': { min: 1, max: 500 } },
  },
  code_fee_bp: 250,
  vip_code_fee_bp: 100,
  min_nominal: KK,
  standard_nominals: [10 * KK, KK, 5 * KK],
  vip_price: 300,
  vip_period_days: 30,
});

describe.each(DB_KINDS)("the operators' game servers on %s", (kind) => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers = admin.auth) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const auditOf = async (entityType: string, entityId: number | string) =>
    (await call('GET', `/api/admin/audit_log?entity_type=${entityType}&entity_id=${entityId}`)).json().data;

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await createUser(t.db.kysely, { admin: true, name: 'Оператор' });
  });
  afterAll(() => t.close());

  describe('game servers', () => {
    it('lists every server, inactive ones too, in their order', async () => {
      await t.db.kysely.updateTable('gamesservers').set({ active: false }).where('name', '=', 'E-Global x1').execute();
      const res = await call('GET', '/api/admin/gamesservers');
      expect(res.statusCode).toBe(200);
      const list: AdminGamesserver[] = res.json();
      expect(list.map((s) => [s.name, s.active])).toEqual([
        ['Scryde x50', true],
        ['Asterios x5', true],
        ['E-Global x1', false],
      ]);
      expect(list[0]).toMatchObject({ code_fee_bp: 300, vip_code_fee_bp: 100, min_nominal: KK, vip_price: 300, vip_period_days: 30 });
      await t.db.kysely.updateTable('gamesservers').set({ active: true }).where('name', '=', 'E-Global x1').execute();
    });

    it('creates a server that players see at once, with the creation in the audit log', async () => {
      const res = await call('POST', '/api/admin/gamesservers', newServer('Fresh x10'));
      expect(res.statusCode).toBe(200);
      const created: AdminGamesserver = res.json().success;
      expect(created).toMatchObject({ name: 'Fresh x10', code_fee_bp: 250, standard_nominals: [KK, 5 * KK, 10 * KK] });
      const pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.map((s: { name: string }) => s.name)).toContain('Fresh x10');
      const [entry] = await auditOf('gamesserver', created.id);
      expect(entry).toMatchObject({ action: 'gamesserver.create', admin_id: admin.id, admin_name: 'Оператор', before: null });
      expect(entry.after).toMatchObject({ name: 'Fresh x10', code_fee_bp: 250 });
    });

    it('refuses a second server with the same name (any case) with 409', async () => {
      const res = await call('POST', '/api/admin/gamesservers', newServer('fresh X10'));
      expect(res.statusCode).toBe(409);
      expect(res.json().errors.name[0]).toMatch(/уже есть/);
      // Cyrillic names too, whatever the cluster's locale (the test cluster runs C, where lower() leaves them).
      expect((await call('POST', '/api/admin/gamesservers', newServer('Свежий х5'))).statusCode).toBe(200);
      expect((await call('POST', '/api/admin/gamesservers', newServer('СВЕЖИЙ Х5'))).statusCode).toBe(409);
    });

    it('refuses bad settings with Russian messages per field and changes nothing', async () => {
      const bad = newServer('Broken');
      bad.limits.input['1'] = { min: 10 * KK, max: KK };
      bad.code_fee_bp = 10_001;
      bad.vip_price = -5;
      bad.standard_nominals = [KK / 2];
      bad.sort_order = 200_000;
      const res = await call('POST', '/api/admin/gamesservers', bad);
      expect(res.statusCode).toBe(422);
      const errors = res.json().errors;
      expect(errors['limits.input.1.max']).toEqual(['Максимум не меньше минимума']);
      expect(errors.code_fee_bp[0]).toMatch(/^От 0 до 10\u00a0000 /);
      expect(errors.vip_price[0]).toMatch(/больше нуля/);
      // Its own range, not the number field's «Введите число».
      expect(errors.sort_order).toEqual(['От −100\u00a0000 до 100\u00a0000']);
      const none = await t.db.kysely.selectFrom('gamesservers').select('id').where('name', '=', 'Broken').execute();
      expect(none).toEqual([]);
    });

    it('changes the code fee, and GET /api/gamesservers answers the new fee at once, audited before and after', async () => {
      const id = await firstServerId(t.db.kysely);
      // Warm the public list's cache so that a stale answer would show.
      await t.app.inject({ method: 'GET', url: '/api/gamesservers' });
      const res = await call('PUT', `/api/admin/gamesservers/${id}`, { code_fee_bp: 450, cashier_nick: 'NewKassa' });
      expect(res.statusCode).toBe(200);
      expect(res.json().success).toMatchObject({ code_fee_bp: 450, cashier_nick: 'NewKassa', vip_code_fee_bp: 100 });
      const pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.find((s: { id: number }) => s.id === id)).toMatchObject({ code_fee_bp: 450, cashier_nick: 'NewKassa' });
      const [entry] = await auditOf('gamesserver', id);
      expect(entry.action).toBe('gamesserver.update');
      expect(entry.before).toMatchObject({ code_fee_bp: 300, cashier_nick: 'AdenaKassa' });
      expect(entry.after).toMatchObject({ code_fee_bp: 450, cashier_nick: 'NewKassa' });
    });

    it('a save that changes nothing (the form sends every field back, limits in its own key order) writes no audit row and keeps updated_at', async () => {
      const id = await firstServerId(t.db.kysely);
      const current = ((await call('GET', '/api/admin/gamesservers')).json() as AdminGamesserver[]).find((s) => s.id === id)!;
      const { id: _id, created_at: _c, updated_at: _u, ...settings } = current;
      // The form's order: min before max (the database gives max first).
      const limits = Object.fromEntries(
        Object.entries(settings.limits).map(([dir, byCurrency]) => [dir, Object.fromEntries(Object.entries(byCurrency).map(([c, l]) => [c, { min: l.min, max: l.max }]))]),
      );
      const audited = (await auditOf('gamesserver', id)).length;
      const res = await call('PUT', `/api/admin/gamesservers/${id}`, { ...settings, limits });
      expect(res.statusCode).toBe(200);
      expect(res.json().success).toEqual(current);
      expect(await auditOf('gamesserver', id)).toHaveLength(audited);
    });

    it('checks the merged record: a VIP fee above the fee or a limit below its minimum is refused', async () => {
      const id = await firstServerId(t.db.kysely);
      const vip = await call('PUT', `/api/admin/gamesservers/${id}`, { vip_code_fee_bp: 5000 });
      expect(vip.statusCode).toBe(422);
      expect(vip.json().errors.vip_code_fee_bp).toEqual(['Комиссия для VIP не больше обычной']);
      const nominal = await call('PUT', `/api/admin/gamesservers/${id}`, { min_nominal: 7 * KK });
      expect(nominal.statusCode).toBe(422);
      expect(Object.keys(nominal.json().errors)[0]).toMatch(/^standard_nominals\.\d$/);
      const row = await t.db.kysely.selectFrom('gamesservers').select(['vip_code_fee_bp', 'min_nominal']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual({ vip_code_fee_bp: 100, min_nominal: BigInt(KK) });
    });

    it('deactivates and reorders: players stop seeing the server at once', async () => {
      const list: AdminGamesserver[] = (await call('GET', '/api/admin/gamesservers')).json();
      const target = list.find((s) => s.name === 'Asterios x5')!;
      expect((await call('PUT', `/api/admin/gamesservers/${target.id}`, { active: false, sort_order: 99 })).statusCode).toBe(200);
      let pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.map((s: { name: string }) => s.name)).not.toContain('Asterios x5');
      expect((await call('PUT', `/api/admin/gamesservers/${target.id}`, { active: true, sort_order: 2 })).statusCode).toBe(200);
      pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.map((s: { name: string }) => s.name)).toContain('Asterios x5');
    });

    it('refuses a standard nominal whose price with the fee no JSON number carries, on create, on edit and on a fee change alone', async () => {
      const huge = 9_000_000_000_000_000;
      const tooBig = /^Цена кода на .+ с комиссией была бы слишком большой/;
      const created = await call('POST', '/api/admin/gamesservers', { ...newServer('Huge x1'), code_fee_bp: 300, standard_nominals: [KK, huge] });
      expect(created.statusCode).toBe(422);
      expect(created.json().errors.standard_nominals[0]).toMatch(tooBig);
      expect(await t.db.kysely.selectFrom('gamesservers').select('id').where('name', '=', 'Huge x1').execute()).toEqual([]);

      const id = await firstServerId(t.db.kysely);
      const edited = await call('PUT', `/api/admin/gamesservers/${id}`, { standard_nominals: [KK, huge] });
      expect(edited.statusCode).toBe(422);
      expect(edited.json().errors.standard_nominals[0]).toMatch(tooBig);
      // Price data stays whole for everyone.
      expect((await t.app.inject({ method: 'GET', url: `/api/varianty_adeny_za_kod/${id}` })).statusCode).toBe(200);

      // Without a fee the nominal's price fits; raising the fee alone would push it past 2^53 − 1.
      const free = await call('POST', '/api/admin/gamesservers', { ...newServer('Free x1'), code_fee_bp: 0, vip_code_fee_bp: 0, standard_nominals: [KK, huge] });
      expect(free.statusCode).toBe(200);
      const freeId = free.json().success.id;
      const fee = await call('PUT', `/api/admin/gamesservers/${freeId}`, { code_fee_bp: 300 });
      expect(fee.statusCode).toBe(422);
      expect(fee.json().errors.standard_nominals[0]).toMatch(tooBig);
      const row = await t.db.kysely.selectFrom('gamesservers').select('code_fee_bp').where('id', '=', freeId).executeTakeFirstOrThrow();
      expect(row.code_fee_bp).toBe(0);
      // A fee under which the price still fits (9e15 + 4.5e12 < 2^53 − 1) is taken.
      expect((await call('PUT', `/api/admin/gamesservers/${freeId}`, { code_fee_bp: 5 })).statusCode).toBe(200);
      await call('PUT', `/api/admin/gamesservers/${freeId}`, { active: false });
    });

    it('answers 404 for a server that does not exist', async () => {
      expect((await call('PUT', '/api/admin/gamesservers/999999', { code_fee_bp: 1 })).statusCode).toBe(404);
    });
  });

  describe('a settings save beside other writers (PostgreSQL locks)', () => {
    let servers = 0;
    /** A server of its own for one test (a save there changes nothing the other tests read), and a player with a funded wallet on it. */
    const arena = async () => {
      const server: AdminGamesserver = (await call('POST', '/api/admin/gamesservers', newServer(`Locks x${++servers}`))).json().success;
      const player = await createUser(t.db.kysely);
      const wallet = await createWallet(t.db.kysely, player.id, server.id);
      await fund(t.db.kysely, wallet, 100n * BigInt(KK));
      return { server, player, wallet };
    };

    it.runIf(kind === 'postgres')("an operator saving a game server's settings while changing a player's VIP, and another operator completing that player's deposit: all three go through (no deadlock)", async () => {
      // Stress review finding: the save held the server's row against foreign-key checks (FOR UPDATE, and a rewrite of
      // the unique name) and then waited for the operator's row; the same operator's VIP change held that row and waited
      // for the player's; the completion held the player's row and, crediting the wallet, waited for the server's row.
      // The operator's id is below the player's: a change of the player takes the operator's row first.
      const op = await createUser(t.db.kysely, { admin: true });
      const other = await createUser(t.db.kysely, { admin: true });
      const { server, player } = await arena();
      const deposit = await call('POST', '/api/up_balance_user/', { gamesserver_id: server.id, amount: 10 * KK }, player.auth);
      expect(deposit.statusCode).toBe(200);
      const requestId = deposit.json().success.id as number;
      const db = t.db.kysely;
      // The completion takes the other operator's and the player's rows, then waits for the request.
      const hold = await holdLocks(db, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', requestId).forUpdate().execute());
      const completing = call('POST', `/api/admin/requests/${requestId}/complete`, {}, other.auth);
      await waitFor(async () => ((await lockWaits(db)) === 1 ? true : undefined), 'the completion to wait for the request');
      // The VIP change holds the operator's row and waits for the player's.
      const vip = call('POST', `/api/admin/users/${player.id}/vip`, { vip_until: new Date(Date.now() + 10 * 86_400_000).toISOString() }, op.auth);
      await waitFor(async () => ((await lockWaits(db)) === 2 ? true : undefined), "the VIP change to wait for the player's row");
      // The save waits for the operator's row too: before the fix, holding the server's row.
      const saving = call('PUT', `/api/admin/gamesservers/${server.id}`, { cashier_nick: 'Kassa2' }, op.auth);
      await waitFor(async () => ((await lockWaits(db)) === 3 ? true : undefined), "the save to wait for the operator's row");
      await hold.release();
      const [c, v, s] = await Promise.all([completing, vip, saving]);
      expect([c.statusCode, v.statusCode, s.statusCode]).toEqual([200, 200, 200]);
      expect(s.json().success).toMatchObject({ name: server.name, cashier_nick: 'Kassa2' });
      expect(await auditLedger(db)).toMatchObject({ ok: true, problems: [] });
    });

    it.runIf(kind === 'postgres')('a settings save under way does not hold up a code issued on that server, nor a new wallet there; a rename does, until it commits', async () => {
      const { server, player, wallet } = await arena();
      const db = t.db.kysely;
      /**
       * Saves `patch`, the save paused after it wrote the server's row (at its audit-log row: the table is held here);
       * then `write` (a player's) runs. Answers whether `write` waited for a lock (it then goes on after the save).
       */
      const duringSave = async (patch: object, write: () => ReturnType<typeof call>) => {
        const auditLog = await holdLocks(db, (trx) => sql`LOCK TABLE admin_audit_log IN SHARE MODE`.execute(trx));
        const saving = call('PUT', `/api/admin/gamesservers/${server.id}`, patch);
        await waitFor(async () => ((await lockWaits(db, '%admin_audit_log%')) === 1 ? true : undefined), 'the save to wait at its audit row');
        let answered = false;
        const writing = write().finally(() => {
          answered = true;
        });
        const waited = await waitFor(async () => (answered ? false : (await lockWaits(db)) > 1 ? true : undefined), 'the write to finish or wait');
        await auditLog.release();
        const [s, w] = await Promise.all([saving, writing]);
        expect([s.statusCode, w.statusCode]).toEqual([200, 200]);
        return waited;
      };
      const issue = () => call('POST', '/api/show_code/', { gamesserver_id: server.id, nominal: 2 * KK, wallet_id: wallet.id }, player.auth);
      expect(await duringSave({ code_fee_bp: 350, cashier_nick: 'Kassa3' }, issue)).toBe(false);
      const newcomer = await createUser(t.db.kysely);
      const newWallet = () => call('POST', '/api/save_nick/', { gamesserver_id: server.id, nick: 'Newbie1' }, newcomer.auth);
      expect(await duringSave({ sort_order: 11 }, newWallet)).toBe(false);
      // A rename still takes the key lock (rare): the issue waits for it, and then goes through.
      expect(await duringSave({ name: `${server.name} renamed` }, issue)).toBe(true);
      expect(await auditLedger(db)).toMatchObject({ ok: true, problems: [] });
    });
  });
});
