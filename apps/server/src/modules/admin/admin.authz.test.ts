import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

const KK = 1_000_000;

describe.each(DB_KINDS)('admin calls refuse outsiders on %s', (kind) => {
  let t: TestApp;
  let player: Awaited<ReturnType<typeof createUser>>;
  let victim: Awaited<ReturnType<typeof createUser>>;
  let serverId: number;
  let accountId: number;
  let requestIds: number[];

  /** Every admin call of this module, with a body an admin's call would succeed with. */
  const calls = () =>
    [
      ['GET', '/api/admin/gamesservers'],
      [
        'POST',
        '/api/admin/gamesservers',
        {
          name: 'Outsider x1',
          active: true,
          sort_order: 1,
          cashier_nick: 'Kassa',
          limits: { input: { '1': { min: 1, max: KK }, '2': { min: 1, max: 10 } }, output: { '1': { min: 1, max: KK }, '2': { min: 1, max: 10 } } },
          code_fee_bp: 0,
          vip_code_fee_bp: 0,
          min_nominal: 1,
          standard_nominals: [],
          vip_price: 1,
          vip_period_days: 1,
        },
      ],
      ['PUT', `/api/admin/gamesservers/${serverId}`, { code_fee_bp: 0, active: false }],
      ['GET', '/api/admin/users?q=a'],
      ['GET', `/api/admin/users/${victim.id}`],
      ['POST', `/api/admin/users/${player.id}/admin`, { admin: true }],
      ['POST', `/api/admin/users/${player.id}/vip`, { vip_until: new Date(Date.now() + 86_400_000).toISOString() }],
      ['POST', `/api/admin/users/${victim.id}/block`, { reason: 'чужой' }],
      ['POST', `/api/admin/users/${victim.id}/unblock`, {}],
      ['POST', '/api/admin/code_incidents/1/resolve', { note: 'чужая заметка' }],
      ['GET', '/api/admin/incident_resolutions?ids=1,2'],
      ['GET', '/api/admin/ledger/totals'],
      ['GET', `/api/admin/ledger/accounts/${accountId}/entries`],
      ['GET', '/api/admin/audit_log'],
      ['GET', '/api/admin/dashboard'],
      // The operators' queue and the ledger audit (the requests module's).
      ['GET', '/api/admin/requests?status=pending'],
      ['POST', `/api/admin/requests/${requestIds[0]}/complete`, {}],
      ['POST', `/api/admin/requests/${requestIds[1]}/reject`, { reason: 'чужой отказ' }],
      ['GET', '/api/admin/ledger/audit'],
    ] as Array<['GET' | 'POST' | 'PUT', string, object?]>;

  /** Everything an admin call could change. */
  const snapshot = async () => {
    const k = t.db.kysely;
    return {
      users: await k.selectFrom('users').selectAll().orderBy('id').execute(),
      tokens: await k.selectFrom('tokens').select(['id', 'user_id', 'kind']).orderBy('id').execute(),
      gamesservers: await k.selectFrom('gamesservers').selectAll().orderBy('id').execute(),
      wallets: await k.selectFrom('wallets').selectAll().orderBy('id').execute(),
      entries: await k.selectFrom('ledger_entries').select(['id', 'amount']).orderBy('id').execute(),
      audit: await k.selectFrom('admin_audit_log').select('id').execute(),
      requests: await k.selectFrom('balance_requests').selectAll().orderBy('id').execute(),
      resolutions: await k.selectFrom('code_incident_resolutions').selectAll().execute(),
    };
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    player = await createUser(t.db.kysely);
    victim = await createUser(t.db.kysely);
    serverId = await firstServerId(t.db.kysely);
    const wallet = await createWallet(t.db.kysely, victim.id, serverId);
    await fund(t.db.kysely, wallet, 10n * BigInt(KK));
    const account = await t.db.kysely.selectFrom('ledger_accounts').select('id').where('wallet_id', '=', wallet.id).executeTakeFirstOrThrow();
    accountId = account.id;
    // A pending deposit and a pending withdrawal of the victim, for the queue's calls.
    requestIds = [];
    for (const url of ['/api/up_balance_user/', '/api/down_balance_user/']) {
      const res = await t.app.inject({ method: 'POST', url, headers: victim.auth, payload: { gamesserver_id: serverId, amount: 2 * KK } });
      expect(res.statusCode).toBe(200);
      requestIds.push(res.json().success.id);
    }
  });
  afterAll(() => t.close());

  it('answers 401 to an anonymous caller and 403 to a player on every call, and nothing changes', async () => {
    const before = await snapshot();
    const list = calls();
    expect(list).toHaveLength(19);
    for (const [method, url, payload] of list) {
      const anon = await t.app.inject({ method, url, ...(payload ? { payload } : {}) });
      expect(anon.statusCode, `${method} ${url} anonymous`).toBe(401);
      expect(anon.json().message).toMatch(/вход/);
      const bad = await t.app.inject({ method, url, headers: { authorization: 'Bearer not-a-token' }, ...(payload ? { payload } : {}) });
      expect(bad.statusCode, `${method} ${url} bad token`).toBe(401);
      const asPlayer = await t.app.inject({ method, url, headers: player.auth, ...(payload ? { payload } : {}) });
      expect(asPlayer.statusCode, `${method} ${url} player`).toBe(403);
      expect(asPlayer.json()).toEqual({ message: 'Недостаточно прав для этого действия' });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses before reading the body: an outsider never learns what an admin call expects', async () => {
    const anon = await t.app.inject({ method: 'POST', url: '/api/admin/gamesservers', payload: { name: 1 } });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().errors).toBeUndefined();
    const asPlayer = await t.app.inject({ method: 'PUT', url: `/api/admin/gamesservers/${serverId}`, headers: player.auth, payload: { code_fee_bp: -1 } });
    expect(asPlayer.statusCode).toBe(403);
  });

  it('refuses a blocked admin like anyone signed out', async () => {
    const blockedAdmin = await createUser(t.db.kysely, { admin: true });
    await t.db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', blockedAdmin.id).execute();
    const before = await snapshot();
    for (const [method, url, payload] of calls()) {
      const res = await t.app.inject({ method, url, headers: blockedAdmin.auth, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    expect(await snapshot()).toEqual(before);
  });
});
