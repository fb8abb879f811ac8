import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

describe.each(DB_KINDS)("the operators' code incidents on %s", (kind) => {
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

  describe('incidents', () => {
    it('answers 404 for an incident that does not exist', async () => {
      const res = await call('POST', '/api/admin/code_incidents/999999/resolve', { note: 'проверено' });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Инцидент не найден');
    });

    it('closes an incident with a note once, audited; the note is read back by incident ids', async (ctx) => {
      // The incidents table is the codes issue's (0005_codes); skipped, not passed, until it exists.
      const exists = await sql<{ t: string | null }>`SELECT to_regclass('code_incidents')::text AS t`.execute(t.db.kysely);
      if (!exists.rows[0]?.t) return ctx.skip('the code_incidents table does not exist yet');
      const server = await firstServerId(t.db.kysely);
      const seller = await createUser(t.db.kysely);
      const buyer = await createUser(t.db.kysely);
      const sw = await createWallet(t.db.kysely, seller.id, server, 'Seller');
      const bw = await createWallet(t.db.kysely, buyer.id, server, 'Buyer');
      // Raw rows: an activated code and the incident of a second try (no money moves here).
      const code = await sql<{ id: number }>`
        INSERT INTO codes (sert, user_id, wallet_id, gamesserver_id, nominal, fee, price, status, activated_by, activated_wallet_id, activated_at)
        VALUES (${`ADN-TEST-${Date.now()}`}, ${seller.id}, ${sw.id}, ${server}, 1000000, 30000, 1030000, 'activated', ${buyer.id}, ${bw.id}, now())
        RETURNING id`.execute(t.db.kysely);
      const incident = await sql<{ id: number }>`
        INSERT INTO code_incidents (code_id, user_id, gamesserver_id, attempted_by, code_status)
        VALUES (${code.rows[0]!.id}, ${seller.id}, ${server}, ${buyer.id}, 'activated') RETURNING id`.execute(t.db.kysely);
      const id = incident.rows[0]!.id;

      const res = await call('POST', `/api/admin/code_incidents/${id}/resolve`, { note: '  Продавец вернул деньги второму покупателю ' });
      expect(res.statusCode).toBe(200);
      expect(res.json().success).toMatchObject({ incident_id: id, note: 'Продавец вернул деньги второму покупателю', resolved_by: admin.id, resolved_by_name: 'Оператор' });
      const again = await call('POST', `/api/admin/code_incidents/${id}/resolve`, { note: 'ещё раз' });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe('Инцидент уже закрыт');
      const list = (await call('GET', `/api/admin/incident_resolutions?ids=${id},999999`)).json();
      expect(list).toEqual([expect.objectContaining({ incident_id: id, note: 'Продавец вернул деньги второму покупателю' })]);
      const card = (await call('GET', `/api/admin/users/${seller.id}`)).json();
      expect(card.codes).toEqual([expect.objectContaining({ id: code.rows[0]!.id, status: 'activated', nominal: 1_000_000, price: 1_030_000 })]);
      const [entry] = await auditOf('code_incident', id);
      expect(entry).toMatchObject({ action: 'code_incident.resolve', after: { note: 'Продавец вернул деньги второму покупателю' } });
    });

    it('requires a note', async () => {
      const res = await call('POST', '/api/admin/code_incidents/1/resolve', { note: '  ' });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.note).toEqual(['Напишите заметку']);
    });
  });
});
