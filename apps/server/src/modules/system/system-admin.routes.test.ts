import type { AdminGamesserver } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, firstServerId } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

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
});
