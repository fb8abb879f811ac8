import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

const KK = 1_000_000;

/**
 * Tried as it happens: Telegram unreachable without a word (a network that drops packets), so each send waits its
 * whole timeout, for hours of retries. The victim is the default lane's work (the operators' alert scan, the sweeps,
 * the purge): it still runs at once, because Telegram's calls have a lane of their own.
 */
describe.each(DB_KINDS)('Telegram unreachable without a word and the default lane on %s', (kind) => {
  let t: TestApp;
  let held = 0;
  const silent = createServer(() => {
    held += 1; // reads each request and never answers
  });
  let serverId: number;
  let ran = false;

  beforeAll(async () => {
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    t = await createTestApp(kind, { env: { TELEGRAM_BOT_TOKEN: '123456:TEST-token_for-local-bot', TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: url } });
    serverId = await firstServerId(t.db.kysely);
    // A job of the default lane, as the alert scan or a sweep is.
    t.app.deps.jobs.register('test.default-lane', async () => {
      ran = true;
    });
    await t.app.deps.jobs.start();
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
    await t?.close();
  });

  it('a notice whose send hangs does not hold the default lane', async () => {
    const u = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ telegram_chat_id: 4242 }).where('id', '=', u.id).execute();
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const limit = await t.app.inject({ method: 'POST', url: '/api/add_limit_otvetka/', headers: u.auth, payload: { gamesserver_id: serverId, telegram_price: 5 * KK } });
    expect(limit.statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: '/api/down_balance_user/', headers: u.auth, payload: { gamesserver_id: serverId, amount: 6 * KK } });
    expect(res.statusCode).toBe(200);
    t.app.deps.jobs.wake();
    // The notice's send is under way and waits for its 5 s timeout.
    await waitFor(() => (held > 0 ? true : undefined), 'the notice sent to the silent Telegram');
    await t.app.deps.jobs.enqueue(t.db.kysely, 'test.default-lane', {});
    t.app.deps.jobs.wake();
    // Well within the send's 5 s: before, the one default worker was held by the send.
    await waitFor(() => (ran ? true : undefined), 'the default lane’s job', 3_000);
  });
});
