import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemRoutes } from './system.routes';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { createUser, createWallet } from '../../../test/factories';
import { DEMO_SERVERS } from './demo-servers';
import { ensureAdmin, seedDemoServers } from './seed';

describe.each(DB_KINDS)('system routes on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('reports health with the database kind', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', ok: true, db: kind });
  });

  it('serves the brand and support contacts from the settings, null when unset', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/public_config' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ brand_name: 'Адена Кошелёк', support_email: null, support_telegram: null });
    // The same route plugin with the settings set, on a bare Fastify (a second app on the shared
    // database is not needed to read three settings).
    const set = Fastify();
    set.setValidatorCompiler(validatorCompiler);
    set.setSerializerCompiler(serializerCompiler);
    const site = { brand_name: 'L2 Банк', support_email: 'help@l2bank.ru', support_telegram: 'l2bank_help' };
    await set.register(systemRoutes({ system: { health: () => ({ status: 'ok' as const, ok: true as const, db: kind }), gameServersJson: async () => '[]' }, site }));
    try {
      const r = await set.inject({ method: 'GET', url: '/api/public_config' });
      expect(r.json()).toEqual(site);
    } finally {
      await set.close();
    }
  });

  it('lists the demo servers of an empty database, in order', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/gamesservers' });
    expect(res.statusCode).toBe(200);
    const servers = res.json();
    expect(servers.map((s: { name: string }) => s.name)).toEqual(DEMO_SERVERS.map((s) => s.name));
    expect(servers[0]).toMatchObject({ cashier_nick: 'AdenaKassa', code_fee_bp: 300, min_nominal: 1_000_000 });
    expect(servers[0].limits.input['1'].min).toBe(1_000_000);
  });

  it('does not seed again once servers exist', async () => {
    expect(await seedDemoServers(t.db.kysely)).toBe(0);
  });

  it('hides inactive servers', async () => {
    await t.db.kysely.updateTable('gamesservers').set({ active: false }).where('name', '=', 'E-Global x1').execute();
    // What an operator's edit does after its transaction.
    t.app.deps.system.gameServersChanged();
    const names = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json().map((s: { name: string }) => s.name);
    expect(names).not.toContain('E-Global x1');
    await t.db.kysely.updateTable('gamesservers').set({ active: true }).where('name', '=', 'E-Global x1').execute();
    t.app.deps.system.gameServersChanged();
  });

  it('shows the median processing time of the last day next to each server', async () => {
    const [server] = await t.db.kysely.selectFrom('gamesservers').select('id').orderBy('sort_order').limit(1).execute();
    const user = await createUser(t.db.kysely);
    const wallet = await createWallet(t.db.kysely, user.id, server!.id);
    const base = { user_id: user.id, wallet_id: wallet.id, gamesserver_id: server!.id, type: 'input' as const, currency_type: 1 as const, amount: 1n, nick: 'Hero', cashier_nick: 'AdenaKassa' };
    const ago = (min: number) => new Date(Date.now() - min * 60_000);
    // Took 10, 20 and 60 minutes: the median is 20. A request from two days ago does not count.
    await t.db.kysely
      .insertInto('balance_requests')
      .values([
        { ...base, status: 'completed', created_at: ago(70), processed_at: ago(60) },
        { ...base, status: 'rejected', created_at: ago(50), processed_at: ago(30) },
        { ...base, status: 'completed', created_at: ago(80), processed_at: ago(20) },
        { ...base, status: 'completed', created_at: ago(3000), processed_at: ago(2900) },
      ])
      .execute();
    t.app.deps.system.gameServersChanged();
    const servers = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
    expect(servers[0].median_processing_minutes).toBe(20);
    expect(servers[1].median_processing_minutes).toBeNull();
  });

  it('answers unknown API paths with a Russian 404, not a page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toMatch(/не найден/i);
  });

  it('answers malformed JSON with a Russian 422, never a 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect([404, 422]).toContain(res.statusCode);
    expect(res.body).not.toMatch(/at .*\.ts/);
  });

  it('creates the first admin from the settings and updates it on the next start', async () => {
    await ensureAdmin(t.db.kysely, 'Boss@Example.com', 'first-password');
    await ensureAdmin(t.db.kysely, 'boss@example.com', 'second-password');
    const admins = await t.db.kysely.selectFrom('users').select(['email', 'admin']).where('admin', '=', true).execute();
    expect(admins).toEqual([{ email: 'boss@example.com', admin: true }]);
  });
});
