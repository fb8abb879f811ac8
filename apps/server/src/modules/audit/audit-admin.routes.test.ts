import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, firstServerId } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

describe.each(DB_KINDS)("the operators' audit log on %s", (kind) => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers = admin.auth) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await createUser(t.db.kysely, { admin: true, name: 'Оператор' });
    // Three audited changes of a game server by this admin.
    const id = await firstServerId(t.db.kysely);
    for (const payload of [{ code_fee_bp: 450 }, { active: false, sort_order: 99 }, { active: true, sort_order: 1 }]) {
      expect((await call('PUT', `/api/admin/gamesservers/${id}`, payload)).statusCode).toBe(200);
    }
  });
  afterAll(() => t.close());

  describe('audit log', () => {
    it('filters by admin, entity and action, newest first', async () => {
      const byAction = (await call('GET', '/api/admin/audit_log?action=gamesserver.update')).json();
      expect(byAction.total).toBeGreaterThanOrEqual(3);
      expect(byAction.data.every((e: { action: string }) => e.action === 'gamesserver.update')).toBe(true);
      const ids = byAction.data.map((e: { id: number }) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const byAdmin = (await call('GET', `/api/admin/audit_log?admin_id=${admin.id}&per_page=100`)).json();
      expect(byAdmin.total).toBe(byAdmin.data.length);
      expect(byAdmin.data.every((e: { admin_id: number }) => e.admin_id === admin.id)).toBe(true);
      const other = (await call('GET', '/api/admin/audit_log?admin_id=999999')).json();
      expect(other).toEqual({ data: [], total: 0 });
    });
  });

  it('pages under before_id: an entry written between page 1 and page 2 repeats nothing on page 2, with filters or without', async () => {
    const server = await firstServerId(t.db.kysely);
    let order = 10;
    const change = async () => expect((await call('PUT', `/api/admin/gamesservers/${server}`, { sort_order: order++ })).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) await change();
    for (const filter of ['', `&admin_id=${admin.id}&entity_type=gamesserver&action=gamesserver.update`]) {
      const first = (await call('GET', `/api/admin/audit_log?per_page=2&page=1${filter}`)).json();
      expect(first.data).toHaveLength(2);
      const anchor: number = first.data[0].id;
      await change();
      // Without the anchor page 2 starts with page 1's last entry again (the new one pushed it down): as before.
      const drifted = (await call('GET', `/api/admin/audit_log?per_page=2&page=2${filter}`)).json();
      expect(drifted.data[0].id).toBe(first.data[1].id);
      const second = (await call('GET', `/api/admin/audit_log?per_page=2&page=2&before_id=${anchor}${filter}`)).json();
      expect(second.data).toHaveLength(2);
      const firstIds = first.data.map((e: { id: number }) => e.id);
      const secondIds = second.data.map((e: { id: number }) => e.id);
      expect(secondIds.some((id: number) => firstIds.includes(id))).toBe(false);
      expect(Math.max(...secondIds)).toBeLessThan(Math.min(...firstIds));
      // The total counts the entries under the anchor: the list as it stood when page 1 was read.
      expect(second.total).toBe(first.total);
      expect(drifted.total).toBe(first.total + 1);
      // Page 1 under the anchor is page 1 as it was read.
      expect((await call('GET', `/api/admin/audit_log?per_page=2&page=1&before_id=${anchor}${filter}`)).json()).toEqual(first);
    }
  });

  it('answers 422 with a Russian message to a bad before_id', async () => {
    for (const bad of ['0', '-3', 'abc', '1.5', '9007199254740993']) {
      const res = await call('GET', `/api/admin/audit_log?before_id=${bad}`);
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors.before_id).toEqual(['Некорректный идентификатор']);
    }
  });

  it('is written, never changed: the database refuses to edit, delete or empty it', async () => {
    const before = await t.db.kysely.selectFrom('admin_audit_log').select(['id', 'action']).orderBy('id').execute();
    expect(before.length).toBeGreaterThan(0);
    const id = before[0]!.id;
    await expect(t.db.kysely.updateTable('admin_audit_log').set({ action: 'forged' }).where('id', '=', id).execute()).rejects.toThrow(/never deleted/);
    await expect(t.db.kysely.deleteFrom('admin_audit_log').where('id', '=', id).execute()).rejects.toThrow(/never deleted/);
    await expect(sql`TRUNCATE admin_audit_log`.execute(t.db.kysely)).rejects.toThrow(/never deleted/);
    expect(await t.db.kysely.selectFrom('admin_audit_log').select(['id', 'action']).orderBy('id').execute()).toEqual(before);
  });
});
