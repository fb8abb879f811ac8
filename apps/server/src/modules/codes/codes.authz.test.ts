import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe.each(DB_KINDS)('codes, user variants, incidents, VIP and Telegram calls refuse outsiders on %s', (kind) => {
  let t: TestApp;
  let owner: Player;
  let intruder: Player;
  let serverId: number;
  let ownerWalletId: number;
  let code: { code_id: number; sert: string };
  let pricekodId: number;
  let incidentId: number;
  const allSerts = new Set<string>();

  const call = (method: Method, url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  /** Every user call of the module aimed at the owner's things, with a body the owner's call would succeed with. */
  const userCalls = (): Array<[Method, string, object?]> => [
    ['GET', `/api/auth_varianty_adeny_za_kod/${serverId}`],
    ['POST', '/api/show_code/', { gamesserver_id: serverId, nominal: KK, wallet_id: ownerWalletId }],
    ['POST', '/api/show_code/', { gamesserver_id: serverId, nominal: KK, wallet_id: ownerWalletId, pricekod_id: pricekodId }],
    ['POST', `/api/codes/${code.code_id}/cancel`],
    ['POST', '/api/pricekods/', { gamesserver_id: serverId, nominal: KK, count: 1 }],
    ['PUT', `/api/pricekods/${pricekodId}`, { gamesserver_id: serverId, nominal: KK, count: 5 }],
    ['DELETE', `/api/pricekods/${pricekodId}`],
    ['GET', '/api/code_incidents'],
    ['POST', `/api/code_incidents/${incidentId}/ack`],
    ['GET', '/api/get_error_user_code'],
    ['POST', '/api/add_limit_otvetka/', { gamesserver_id: serverId, telegram_price: KK }],
    ['POST', '/api/del_limit_otvetka/', { gamesserver_id: serverId }],
    ['GET', '/api/telegram_link'],
    ['POST', '/api/vip/', { months: 1 }],
    ['POST', '/api/activation_code/', { sert: 'ADN-0000-0000-0000-0000' }],
  ];
  const adminCalls = (): Array<[Method, string, object?]> => [
    ['GET', '/api/admin/code_incidents'],
    ['GET', `/api/admin/codes?id=${code.code_id}`],
    ['GET', `/api/admin/codes?sert=${code.sert}`],
    ['POST', `/api/admin/codes/${code.code_id}/cancel`, { reason: 'чужой' }],
  ];

  /** Everything these calls could change. */
  const snapshot = async () => {
    const k = t.db.kysely;
    return {
      users: await k.selectFrom('users').selectAll().orderBy('id').execute(),
      wallets: await k.selectFrom('wallets').selectAll().orderBy('id').execute(),
      entries: await k.selectFrom('ledger_entries').select(['id', 'amount']).orderBy('id').execute(),
      codes: await k.selectFrom('codes').selectAll().orderBy('id').execute(),
      pricekods: await k.selectFrom('pricekods').selectAll().orderBy('id').execute(),
      incidents: await k.selectFrom('code_incidents').selectAll().orderBy('id').execute(),
      links: await k.selectFrom('telegram_link_tokens').select('token_hash').execute(),
      audit: await k.selectFrom('admin_audit_log').select('id').execute(),
    };
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    owner = await createUser(t.db.kysely);
    intruder = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, owner.id, serverId);
    ownerWalletId = w.id;
    await fund(t.db.kysely, w, 100n * BigInt(KK));
    await fund(t.db.kysely, w, 10_000n, 2);
    // The intruder has a wallet and coins of their own, so nothing of theirs needs creating either.
    const iw = await createWallet(t.db.kysely, intruder.id, serverId);
    await fund(t.db.kysely, iw, 1n, 1);
    code = (await call('POST', '/api/show_code/', owner.auth, { gamesserver_id: serverId, nominal: KK, wallet_id: ownerWalletId })).json();
    const pk = (await call('POST', '/api/pricekods/', owner.auth, { gamesserver_id: serverId, nominal: 2 * KK, count: 2 })).json();
    pricekodId = pk.success.id;
    for (const c of await t.db.kysely.selectFrom('codes').select('sert').execute()) allSerts.add(c.sert);
    // An incident of the owner: someone tries an activated code of theirs.
    const used = (await call('POST', '/api/show_code/', owner.auth, { gamesserver_id: serverId, nominal: KK, wallet_id: ownerWalletId })).json();
    allSerts.add(used.sert);
    const a = await createUser(t.db.kysely);
    const b = await createUser(t.db.kysely);
    await call('POST', '/api/activation_code/', a.auth, { sert: used.sert });
    await call('POST', '/api/activation_code/', b.auth, { sert: used.sert });
    incidentId = (await t.db.kysely.selectFrom('code_incidents').select('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(() => t.close());

  const leaksASert = (body: string) => [...allSerts].some((s) => body.includes(s) || body.includes(s.replace(/-/g, '')));

  it('answers 401 to an anonymous caller and a bad token on every user and admin call, and nothing changes', async () => {
    const before = await snapshot();
    const list = [...userCalls(), ...adminCalls()];
    expect(list).toHaveLength(19);
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Array<Record<string, string>>) {
      for (const [method, url, payload] of list) {
        const res = await call(method, url, headers, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json().message).toBe('Необходимо выполнить вход');
        expect(leaksASert(res.body)).toBe(false);
      }
    }
    // Authorisation comes before validation: a garbage body still gets 401, not a 422 describing it.
    expect((await call('POST', '/api/show_code/', {}, { nonsense: true })).statusCode).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it('answers 403 to a player on every admin call, and nothing changes', async () => {
    const before = await snapshot();
    for (const [method, url, payload] of adminCalls()) {
      const res = await call(method, url, intruder.auth, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(leaksASert(res.body)).toBe(false);
    }
    expect((await call('POST', `/api/admin/codes/${code.code_id}/cancel`, intruder.auth, {})).statusCode).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("never lets another player touch or see the owner's codes, variants, incidents or wallet", async () => {
    const before = await snapshot();
    const expectStatus: Record<string, number[]> = {
      'POST /api/show_code/': [404],
      [`POST /api/codes/${code.code_id}/cancel`]: [404],
      [`PUT /api/pricekods/${pricekodId}`]: [404],
      [`DELETE /api/pricekods/${pricekodId}`]: [404],
      [`POST /api/code_incidents/${incidentId}/ack`]: [404],
    };
    for (const [method, url, payload] of userCalls()) {
      // Calls on the intruder's own things (their own price data, limit, VIP, a new variant) are
      // not outsiders' calls; they are covered by the route tests.
      if (['/api/pricekods/', '/api/add_limit_otvetka/', '/api/del_limit_otvetka/', '/api/vip/', '/api/telegram_link'].includes(url)) continue;
      const res = await call(method, url, intruder.auth, payload);
      const allowed = expectStatus[`${method} ${url}`];
      if (allowed) expect(allowed, `${method} ${url}`).toContain(res.statusCode);
      expect(leaksASert(res.body), `${method} ${url} leaks a sert`).toBe(false);
      if (url === '/api/code_incidents') expect(res.json()).toEqual([]);
      if (url === '/api/get_error_user_code') expect(res.json()).toEqual({ error_codes_count: 0 });
      if (url.startsWith('/api/auth_varianty_adeny_za_kod/')) {
        const data = res.json();
        expect(data.wallet.id).not.toBe(ownerWalletId);
        expect(data.kods).toEqual([]);
        expect(data.svoy_variant_kods).toEqual([]);
        expect(data.pricekods).toEqual([]);
      }
    }
    // The activation try of an unknown code is logged; nothing else may have changed.
    const after = await snapshot();
    expect(after).toEqual(before);
  });

  it('shows anonymous price data with no sert of anyone', async () => {
    const res = await call('GET', `/api/varianty_adeny_za_kod/${serverId}`, {});
    expect(res.statusCode).toBe(200);
    expect(leaksASert(res.body)).toBe(false);
    expect(res.body).not.toMatch(/ADN-/);
    const data = res.json();
    expect(data).toMatchObject({ kods: [], svoy_variant_kods: [], pricekods: [] });
    expect(data).not.toHaveProperty('wallet');
  });
});
