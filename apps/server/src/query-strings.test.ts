import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, firstServerId, TEST_TOTP_SECRET } from '../test/factories';
import { createTestApp, type TestApp } from '../test/harness';
import { totpCode } from './modules/two-factor/totp';

describe('optional filters sent empty, as PRODUCT.md writes them', () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  let player: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await createTestApp('pglite');
    admin = await createUser(t.db.kysely, { admin: true });
    player = await createUser(t.db.kysely);
  });
  afterAll(() => t.close());
  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  it('mean no filter: the list answers as without them', async () => {
    const serverId = await firstServerId(t.db.kysely);
    for (const [url, who] of [
      ['/api/admin/requests?status=&type=&gamesserver_id=&page=', admin.auth],
      ['/api/admin/operators/stats?from=&to=', admin.auth],
      ['/api/statement?gamesserver_id=&currency_type=&page=&per_page=', player.auth],
      ['/api/my_codes?status=&gamesserver_id=&page=', { ...player.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) }],
      [`/api/get_user_input_output_balance?gamesserver_id=${serverId}&page=`, player.auth],
    ] as const) {
      const res = await get(url, who);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    // A value that is there and wrong is still refused.
    const bad = await get('/api/admin/requests?status=nonsense', admin.auth);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.status).toBeDefined();
  });
});
