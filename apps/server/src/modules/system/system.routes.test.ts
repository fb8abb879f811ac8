import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
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
    expect(res.json()).toEqual({ ok: true, db: kind });
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
    const names = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json().map((s: { name: string }) => s.name);
    expect(names).not.toContain('E-Global x1');
    await t.db.kysely.updateTable('gamesservers').set({ active: true }).where('name', '=', 'E-Global x1').execute();
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
