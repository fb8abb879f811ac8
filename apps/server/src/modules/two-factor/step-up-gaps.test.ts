import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { hashToken, newToken } from '../../lib/tokens';
import { auditLedger } from '../ledger/ledger.service';
import { totpCode } from './totp';

/**
 * The step-up gaps of the security review (task R1): a thief holding a session of a player with TOTP on
 * must not turn the balance into bearer value (pricekods), read the codes (my_codes) or mint an API key
 * (which issues codes without a second factor); and a keyed retry of a stepped-up call is replayed, not
 * refused for want of a fresh code.
 */
describe.each(DB_KINDS)('step-up gaps on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  /** A good code the server has not seen yet: the user's last accepted step is forgotten first. */
  async function freshCode(userId: number) {
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', userId).execute();
    return totpCode(TEST_TOTP_SECRET, new Date());
  }

  async function victim() {
    const u = await createUser(t.db.kysely, { totp: true });
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 100n * BigInt(KK));
    return { u, w };
  }

  const holdings = async (userId: number) => ({
    wallets: await t.db.kysely.selectFrom('wallets').select(['balance', 'balance_second']).where('user_id', '=', userId).execute(),
    codes: (await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', userId).execute()).length,
    requests: (await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', userId).execute()).length,
    keys: (await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', userId).execute()).length,
  });
  const refused = (res: { statusCode: number; json: () => unknown }) => {
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ message: expect.stringMatching(/код/), two_factor_required: true });
  };

  it("a thief with the victim's session cannot issue a batch of codes, grow one, list the codes or mint an API key", async () => {
    const { u } = await victim();
    // The owner's own batch, made with a code, which the thief will try to grow.
    const made = await call('POST', '/api/pricekods/', { ...u.auth, 'x-two-factor-code': await freshCode(u.id) }, { gamesserver_id: serverId, nominal: KK, count: 1 });
    expect(made.statusCode).toBe(200);
    // The owner's step-up opened this session's list for 10 minutes; the thief's tries below come later.
    await t.db.kysely.updateTable('tokens').set({ stepped_up_at: null }).where('user_id', '=', u.id).execute();
    const before = await holdings(u.id);

    for (const extra of [{}, { 'x-two-factor-code': '000000' }, { 'x-two-factor-code': 'abcde-fghij' }] as Record<string, string>[]) {
      const h = { ...u.auth, ...extra };
      refused(await call('POST', '/api/pricekods/', { ...h, 'idempotency-key': `t-${Math.random()}` }, { gamesserver_id: serverId, nominal: KK, count: 50 }));
      refused(await call('PUT', `/api/pricekods/${made.json().success.id}`, h, { gamesserver_id: serverId, nominal: KK, count: 100 }));
      const list = await call('GET', '/api/my_codes', h);
      refused(list);
      expect(list.body).not.toMatch(/ADN-/);
      refused(await call('POST', '/api/api_keys', h, { name: 'thief' }));
    }
    expect(await holdings(u.id)).toEqual(before);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('the owner with a code does each; the list then stays open to that session for 10 minutes, not to another one', async () => {
    const { u } = await victim();
    const created = await call('POST', '/api/pricekods/', { ...u.auth, 'x-two-factor-code': await freshCode(u.id) }, { gamesserver_id: serverId, nominal: KK, count: 2 });
    expect(created.statusCode).toBe(200);
    const grown = await call('PUT', `/api/pricekods/${created.json().success.id}`, { ...u.auth, 'x-two-factor-code': await freshCode(u.id) }, {
      gamesserver_id: serverId,
      nominal: KK,
      count: 3,
    });
    expect(grown.statusCode).toBe(200);
    const key = await call('POST', '/api/api_keys', { ...u.auth, 'x-two-factor-code': await freshCode(u.id) }, { name: 'магазин' });
    expect(key.statusCode).toBe(200);
    expect(key.json().key).toMatch(/^aw_/);

    // The step-ups above opened this session's list: pages without a code.
    const page = await call('GET', '/api/my_codes?page=1', u.auth);
    expect(page.statusCode).toBe(200);
    expect(page.json().total).toBe(3);
    expect(page.json().data[0].sert).toMatch(/^ADN-/);

    // Another session of the same user (the thief's, signed in meanwhile) is not opened by it.
    const other = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: u.id, kind: 'access', token_hash: hashToken(other) }).execute();
    refused(await call('GET', '/api/my_codes', { authorization: `Bearer ${other}` }));

    // Eleven minutes later the owner's session is asked again; a code opens it.
    await t.db.kysely
      .updateTable('tokens')
      .set({ stepped_up_at: new Date(Date.now() - 11 * 60_000) })
      .where('token_hash', '=', hashToken(u.token))
      .execute();
    refused(await call('GET', '/api/my_codes', u.auth));
    expect((await call('GET', '/api/my_codes', { ...u.auth, 'x-two-factor-code': await freshCode(u.id) })).statusCode).toBe(200);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('players without TOTP are not asked for any of these', async () => {
    const u = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    expect((await call('POST', '/api/pricekods/', u.auth, { gamesserver_id: serverId, nominal: KK, count: 1 })).statusCode).toBe(200);
    expect((await call('GET', '/api/my_codes', u.auth)).statusCode).toBe(200);
    // No password either (a fresh Telegram or Discord sign-in): an account with one gives it for a key (seller.routes.test.ts).
    expect((await call('POST', '/api/api_keys', u.auth, { name: 'k' })).statusCode).toBe(200);
  });

  it('a keyed withdrawal retried after its answer was lost is replayed, with the spent code or none, and moves money once', async () => {
    const { u, w } = await victim();
    const body = { gamesserver_id: serverId, amount: KK };
    const code = await freshCode(u.id);
    const h = { ...u.auth, 'idempotency-key': `w-${Math.random()}` };
    const first = await call('POST', '/api/down_balance_user/', { ...h, 'x-two-factor-code': code }, body);
    expect(first.statusCode).toBe(200);
    const sameCode = await call('POST', '/api/down_balance_user/', { ...h, 'x-two-factor-code': code }, body);
    const noCode = await call('POST', '/api/down_balance_user/', h, body);
    expect([sameCode.statusCode, noCode.statusCode]).toEqual([200, 200]);
    expect(sameCode.json()).toEqual(first.json());
    expect(noCode.json()).toEqual(first.json());
    // The key is no pass: another key, or the same key for another amount, still needs a code.
    refused(await call('POST', '/api/down_balance_user/', { ...u.auth, 'idempotency-key': `w-${Math.random()}` }, body));
    refused(await call('POST', '/api/down_balance_user/', h, { ...body, amount: 2 * KK }));
    // The token still counts: a replay for a signed-out caller is 401.
    await t.db.kysely.deleteFrom('tokens').where('token_hash', '=', hashToken(u.token)).execute();
    expect((await call('POST', '/api/down_balance_user/', h, body)).statusCode).toBe(401);

    const wallet = await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(wallet.balance).toBe(99n * BigInt(KK));
    expect((await holdings(u.id)).requests).toBe(1);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('keyed show_code and pricekods retries are replayed without a fresh code and issue once', async () => {
    const { u, w } = await victim();
    const show = { gamesserver_id: serverId, nominal: KK, wallet_id: w.id };
    const hs = { ...u.auth, 'idempotency-key': `s-${Math.random()}` };
    const code = await freshCode(u.id);
    const first = await call('POST', '/api/show_code/', { ...hs, 'x-two-factor-code': code }, show);
    expect(first.statusCode).toBe(200);
    for (const extra of [{ 'x-two-factor-code': code }, {}] as Record<string, string>[]) {
      const again = await call('POST', '/api/show_code/', { ...hs, ...extra }, show);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
    }
    const batch = { gamesserver_id: serverId, nominal: KK, count: 2 };
    const hp = { ...u.auth, 'idempotency-key': `p-${Math.random()}` };
    const made = await call('POST', '/api/pricekods/', { ...hp, 'x-two-factor-code': await freshCode(u.id) }, batch);
    expect(made.statusCode).toBe(200);
    const retried = await call('POST', '/api/pricekods/', hp, batch);
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toEqual(made.json());
    // Another batch under a new key still asks.
    refused(await call('POST', '/api/pricekods/', { ...u.auth, 'idempotency-key': `p-${Math.random()}` }, batch));
    expect((await holdings(u.id)).codes).toBe(3);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });
});
