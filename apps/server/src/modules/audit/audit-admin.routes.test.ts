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
