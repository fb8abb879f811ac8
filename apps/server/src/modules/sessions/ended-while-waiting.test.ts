import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';
import { totpCode } from '../two-factor/totp';

/**
 * A code or a batch is a bearer value: bought on a session that an operator's block or the owner's logout ends while
 * the purchase waits for the player's row, it would hand a thief a code paid from the wallet after he was shut out.
 * The purchase takes the player's row first and then finds its session ended: 401, nothing bought, the second-factor
 * code not counted (stress review, round 7). So do a VIP purchase, turning TOTP off, and a seller API call whose key
 * is revoked, or whose user is blocked, while it waits (round 8), and a code's cancel or a batch's delete (they void
 * codes already handed out). A withdrawal's statement checks its bearer itself.
 */
describe('a call that waited for a block, a logout or a revoke of what it was made with', () => {
  let t: TestApp;
  let serverId: number;
  let operator: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await createTestApp('postgres');
    serverId = await firstServerId(t.db.kysely);
    operator = await createUser(t.db.kysely, { admin: true });
  });
  afterAll(() => t.close());

  async function player(totp: boolean) {
    const u = await createUser(t.db.kysely, { totp });
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    return { u, w, headers: { ...u.auth, ...(totp ? { 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) } : {}) } };
  }
  const codesOf = async (userId: number) => (await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', userId).execute()).length;
  const balance = async (walletId: number) =>
    (await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance;

  /**
   * `end` (a block, a logout) takes the player's row and then waits at their session's row, held here; `buy` is sent
   * and waits for the player's row; then the session's row is let go, and `end` commits before `buy` goes on.
   */
  async function buyWhileEnding(userId: number, end: () => Promise<{ statusCode: number }>, buy: () => Promise<{ statusCode: number; json(): unknown }>) {
    const session = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('tokens').select('id').where('user_id', '=', userId).forUpdate().execute());
    const ended = end();
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the block or logout to wait at the session');
    const bought = buy();
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the purchase to wait for the player');
    await session.release();
    expect((await ended).statusCode).toBe(200);
    return bought;
  }

  for (const totp of [true, false]) {
    const who = totp ? 'with the second factor' : 'without a second factor';

    it(`a code bought ${who} while an operator blocks the player: 401, no code, the wallet untouched`, async () => {
      const p = await player(totp);
      const block = () => t.app.inject({ method: 'POST', url: `/api/admin/users/${p.u.id}/block`, headers: operator.auth, payload: { reason: 'угнан' } });
      const res = await buyWhileEnding(p.u.id, block, () =>
        t.app.inject({ method: 'POST', url: '/api/show_code/', headers: p.headers, payload: { gamesserver_id: serverId, nominal: KK, wallet_id: p.w.id } }),
      );
      expect(res.statusCode).toBe(401);
      expect(await codesOf(p.u.id)).toBe(0);
      expect(await balance(p.w.id)).toBe(10n * BigInt(KK));
    });

    it(`a batch bought ${who} while the player logs out in another tab: 401, no batch`, async () => {
      const p = await player(totp);
      const logout = () => t.app.inject({ method: 'GET', url: '/api/logout', headers: p.u.auth });
      const res = await buyWhileEnding(p.u.id, logout, () =>
        t.app.inject({ method: 'POST', url: '/api/pricekods/', headers: p.headers, payload: { gamesserver_id: serverId, nominal: KK, count: 2 } }),
      );
      expect(res.statusCode).toBe(401);
      expect(await codesOf(p.u.id)).toBe(0);
      expect(await balance(p.w.id)).toBe(10n * BigInt(KK));
    });
  }

  it('a batch deleted while the player logs out in another tab: 401, the codes handed out stay valid', async () => {
    const p = await player(false);
    const created = await t.app.inject({ method: 'POST', url: '/api/pricekods/', headers: p.headers, payload: { gamesserver_id: serverId, nominal: KK, count: 2 } });
    expect(created.statusCode).toBe(200);
    const id = (await t.db.kysely.selectFrom('pricekods').select('id').where('user_id', '=', p.u.id).executeTakeFirstOrThrow()).id;
    const logout = () => t.app.inject({ method: 'GET', url: '/api/logout', headers: p.u.auth });
    const res = await buyWhileEnding(p.u.id, logout, () => t.app.inject({ method: 'DELETE', url: `/api/pricekods/${id}`, headers: p.headers }));
    expect(res.statusCode).toBe(401);
    const codes = await t.db.kysely.selectFrom('codes').select('status').where('user_id', '=', p.u.id).execute();
    expect(codes.map((c) => c.status)).toEqual(['active', 'active']);
  });

  describe('a call whose code is used before it runs, while an operator blocks the player', () => {
    const block = (userId: number) => () =>
      t.app.inject({ method: 'POST', url: `/api/admin/users/${userId}/block`, headers: operator.auth, payload: { reason: 'угнан' } });

    it('the codes’ texts (GET /my_codes): 401, none shown', async () => {
      const p = await player(true);
      expect((await t.app.inject({ method: 'POST', url: '/api/show_code/', headers: p.headers, payload: { gamesserver_id: serverId, nominal: KK, wallet_id: p.w.id } })).statusCode).toBe(200);
      const sert = (await t.db.kysely.selectFrom('codes').select('sert').where('user_id', '=', p.u.id).executeTakeFirstOrThrow()).sert;
      // The purchase's code counts as a recent step-up for reads; asked again, as after a few minutes.
      await t.db.kysely.updateTable('tokens').set({ stepped_up_at: null }).where('user_id', '=', p.u.id).execute();
      const fresh = { ...p.u.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date(Date.now() + 30_000)) };
      const res = await buyWhileEnding(p.u.id, block(p.u.id), () => t.app.inject({ method: 'GET', url: '/api/my_codes', headers: fresh }));
      expect(res.statusCode).toBe(401);
      expect(JSON.stringify(res.json())).not.toContain(sert);
    });

    it('a nick (the character withdrawals are paid to): 401, the nick as it was', async () => {
      const p = await player(true);
      const res = await buyWhileEnding(p.u.id, block(p.u.id), () =>
        t.app.inject({ method: 'POST', url: '/api/save_nick/', headers: p.headers, payload: { gamesserver_id: serverId, nick: 'Thief' } }),
      );
      expect(res.statusCode).toBe(401);
      const w = await t.db.kysely.selectFrom('wallets').select('nick').where('id', '=', p.w.id).executeTakeFirstOrThrow();
      expect(w.nick).not.toBe('Thief');
    });
  });

  it('a VIP purchase while an operator blocks the player: 401, no coins spent, no VIP', async () => {
    const p = await player(false);
    await fund(t.db.kysely, p.w, 1_000n, 2);
    const block = () => t.app.inject({ method: 'POST', url: `/api/admin/users/${p.u.id}/block`, headers: operator.auth, payload: { reason: 'угнан' } });
    const res = await buyWhileEnding(p.u.id, block, () =>
      t.app.inject({ method: 'POST', url: '/api/vip/', headers: p.u.auth, payload: { months: 1, gamesserver_id: serverId } }),
    );
    expect(res.statusCode).toBe(401);
    const after = await t.db.kysely.selectFrom('users').select('vip_until').where('id', '=', p.u.id).executeTakeFirstOrThrow();
    expect(after.vip_until).toBeNull();
    expect((await t.db.kysely.selectFrom('wallets').select('balance_second').where('id', '=', p.w.id).executeTakeFirstOrThrow()).balance_second).toBe(1_000n);
  });

  it('turning TOTP on from a session an operator blocks meanwhile: 401 (the session ended), not «start the setup again», TOTP off', async () => {
    const p = await player(false);
    const setup = await t.app.inject({ method: 'POST', url: '/api/2fa/setup', headers: p.u.auth, payload: {} });
    expect(setup.statusCode).toBe(200);
    const secret = (setup.json() as { secret: string }).secret;
    const block = () => t.app.inject({ method: 'POST', url: `/api/admin/users/${p.u.id}/block`, headers: operator.auth, payload: { reason: 'угнан' } });
    const res = await buyWhileEnding(p.u.id, block, () =>
      t.app.inject({ method: 'POST', url: '/api/2fa/enable', headers: p.u.auth, payload: { code: totpCode(secret, new Date()) } }),
    );
    expect(res.statusCode).toBe(401);
    expect((await t.db.kysely.selectFrom('users').select('totp_secret').where('id', '=', p.u.id).executeTakeFirstOrThrow()).totp_secret).toBeNull();
  });

  it('turning TOTP off from a session the owner logs out meanwhile: 401, TOTP stays on', async () => {
    const p = await player(true);
    const logout = () => t.app.inject({ method: 'GET', url: '/api/logout', headers: p.u.auth });
    const res = await buyWhileEnding(p.u.id, logout, () =>
      t.app.inject({ method: 'POST', url: '/api/2fa/disable', headers: p.u.auth, payload: { code: totpCode(TEST_TOTP_SECRET, new Date()) } }),
    );
    expect(res.statusCode).toBe(401);
    expect((await t.db.kysely.selectFrom('users').select('totp_secret').where('id', '=', p.u.id).executeTakeFirstOrThrow()).totp_secret).toBe(TEST_TOTP_SECRET);
  });

  describe('the seller API', () => {
    async function seller() {
      const p = await player(false);
      const key = (await t.app.inject({ method: 'POST', url: '/api/api_keys', headers: p.u.auth, payload: { name: 'bot' } })).json().key as string;
      expect(key).toMatch(/^aw_/);
      return { ...p, key };
    }
    const issue = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/codes',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': `k-${Math.random()}` },
        payload: { gamesserver_id: serverId, nominal: KK, count: 2 },
      });

    it('codes issued with a key its owner revokes meanwhile: 401, none issued', async () => {
      const s = await seller();
      const keyId = (await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', s.u.id).executeTakeFirstOrThrow()).id;
      const revoke = await holdLocks(t.db.kysely, (trx) => trx.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).execute());
      const issued = issue(s.key);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the call to wait for the key');
      await revoke.release();
      const res = await issued;
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('API-ключ не найден или отозван');
      expect(await codesOf(s.u.id)).toBe(0);
    });

    it('a code cancelled with a key its owner revokes meanwhile: 401, the sold code stays valid', async () => {
      const s = await seller();
      const issued = await issue(s.key);
      expect(issued.statusCode).toBe(200);
      const codeId = (await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', s.u.id).executeTakeFirstOrThrow()).id;
      const keyId = (await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', s.u.id).executeTakeFirstOrThrow()).id;
      const revoke = await holdLocks(t.db.kysely, (trx) => trx.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).execute());
      const cancelled = t.app.inject({ method: 'DELETE', url: `/api/v1/codes/${codeId}`, headers: { authorization: `Bearer ${s.key}` } });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the cancel to wait for the key');
      await revoke.release();
      const res = await cancelled;
      expect(res.statusCode).toBe(401);
      const code = await t.db.kysely.selectFrom('codes').select('status').where('id', '=', codeId).executeTakeFirstOrThrow();
      expect(code.status).toBe('active');
    });

    it('codes issued with a key while an operator blocks its stolen account (revoking its keys): 401, none issued', async () => {
      const s = await seller();
      const block = () =>
        t.app.inject({ method: 'POST', url: `/api/admin/users/${s.u.id}/block`, headers: operator.auth, payload: { reason: 'угнан', revoke_keys: true } });
      const res = await buyWhileEnding(s.u.id, block, () => issue(s.key));
      expect(res.statusCode).toBe(401);
      expect(await codesOf(s.u.id)).toBe(0);
      expect(await balance(s.w.id)).toBe(10n * BigInt(KK));
    });
  });

  it('a batch edited with the second factor while an operator blocks the player: 401, the batch as it was', async () => {
    const p = await player(true);
    const created = await t.app.inject({ method: 'POST', url: '/api/pricekods/', headers: p.headers, payload: { gamesserver_id: serverId, nominal: KK, count: 1 } });
    expect(created.statusCode).toBe(200);
    const id = (await t.db.kysely.selectFrom('pricekods').select('id').where('user_id', '=', p.u.id).executeTakeFirstOrThrow()).id;
    const fresh = { ...p.u.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date(Date.now() + 30_000)) };
    const block = () => t.app.inject({ method: 'POST', url: `/api/admin/users/${p.u.id}/block`, headers: operator.auth, payload: { reason: 'угнан' } });
    const res = await buyWhileEnding(p.u.id, block, () =>
      t.app.inject({ method: 'PUT', url: `/api/pricekods/${id}`, headers: fresh, payload: { gamesserver_id: serverId, nominal: KK, count: 3 } }),
    );
    expect(res.statusCode).toBe(401);
    expect(await codesOf(p.u.id)).toBe(1);
    expect(await balance(p.w.id)).toBe(10n * BigInt(KK) - BigInt(KK) - (await t.db.kysely.selectFrom('codes').select('fee').where('user_id', '=', p.u.id).executeTakeFirstOrThrow()).fee);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });
});
