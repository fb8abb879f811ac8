import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, holdLocks, lockWaits, type TestApp } from '../../../test/harness';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;

// Lock waits are PostgreSQL's; PGlite runs one statement at a time, so the race cannot happen there.
describe('a seller removing their webhook while an event of it commits (postgres)', () => {
  let t: TestApp;
  let serverId: number;
  const call = (method: 'POST' | 'PUT' | 'DELETE', url: string, who: Player, payload?: object) =>
    t.app.inject({ method, url, headers: who.auth, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    // No job workers run: what the deliveries' rows say is what the workers would do.
    t = await createTestApp('postgres', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  it('the removal waits for the event and fails its delivery: the endpoint set next never receives it', async () => {
    // Review finding (stress round 3): the removal's two statements ran between the event's delivery row and its
    // commit, so that delivery stayed pending and went to the next endpoint, signed with its secret.
    const seller = await createUser(t.db.kysely);
    const admin = await createUser(t.db.kysely, { admin: true });
    await createWallet(t.db.kysely, seller.id, serverId);
    // A linked chat: the decision's Telegram notice is written after the webhook event, and waits on the server row.
    await t.db.kysely.updateTable('users').set({ telegram_chat_id: 777_001n }).where('id', '=', seller.id).execute();
    expect((await call('PUT', '/api/webhook', seller, { url: 'http://127.0.0.1:9/old', events: ['request.rejected'] })).statusCode).toBe(200);
    const opened = await call('POST', '/api/up_balance_user/', seller, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 });
    const id = opened.json().success.id as number;

    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('gamesservers').select('id').where('id', '=', serverId).forUpdate().execute());
    const rejected = call('POST', `/api/admin/requests/${id}/reject`, admin, { reason: 'Нет перевода' });
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%telegram_notices%')) === 1 ? true : undefined), 'the decision to wait after its webhook event');
    let removedEarly = false;
    const removed = call('DELETE', '/api/webhook', seller).then((r) => {
      removedEarly = true;
      return r;
    });
    // The removal waits for the event's transaction (or, before the fix, is done at once).
    await waitFor(async () => (removedEarly || (await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the removal to wait or end');
    await hold.release();
    const [r, d] = await Promise.all([rejected, removed]);
    expect([r.statusCode, d.statusCode]).toEqual([200, 200]);
    expect((await call('PUT', '/api/webhook', seller, { url: 'http://127.0.0.1:9/new', events: ['request.rejected'] })).statusCode).toBe(200);

    const deliveries = await t.db.kysely.selectFrom('webhook_deliveries').select(['type', 'status', 'last_error']).where('user_id', '=', seller.id).execute();
    expect(deliveries).toEqual([{ type: 'request.rejected', status: 'failed', last_error: 'endpoint removed' }]);
  });
});
