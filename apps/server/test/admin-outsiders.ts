import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from './factories';
import { createTestApp, DB_KINDS, type TestApp } from './harness';

export const KK = 1_000_000;

export type AdminCall = ['GET' | 'POST' | 'PUT', string, object?];

/** What an admin-call list may refer to: two players, a server, the victim's ledger account and two pending requests. */
export interface OutsiderWorld {
  player: Awaited<ReturnType<typeof createUser>>;
  victim: Awaited<ReturnType<typeof createUser>>;
  serverId: number;
  accountId: number;
  /** The victim's pending deposit and pending withdrawal. */
  requestIds: number[];
}

/**
 * A module's admin calls refuse outsiders: 401 to the anonymous and a bad token, 403 to a player,
 * 401 to a blocked admin; the database is re-read to prove nothing changed.
 */
export function describeAdminOutsiders(title: string, calls: (w: OutsiderWorld) => AdminCall[], count: number, more?: (ctx: () => { t: TestApp; w: OutsiderWorld }) => void) {
  describe.each(DB_KINDS)(`${title} refuse outsiders on %s`, (kind) => {
    let t: TestApp;
    let w: OutsiderWorld;

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
      const player = await createUser(t.db.kysely);
      const victim = await createUser(t.db.kysely);
      const serverId = await firstServerId(t.db.kysely);
      const wallet = await createWallet(t.db.kysely, victim.id, serverId);
      await fund(t.db.kysely, wallet, 10n * BigInt(KK));
      const account = await t.db.kysely.selectFrom('ledger_accounts').select('id').where('wallet_id', '=', wallet.id).executeTakeFirstOrThrow();
      const requestIds: number[] = [];
      for (const url of ['/api/up_balance_user/', '/api/down_balance_user/']) {
        const res = await t.app.inject({ method: 'POST', url, headers: victim.auth, payload: { gamesserver_id: serverId, amount: 2 * KK } });
        expect(res.statusCode).toBe(200);
        requestIds.push(res.json().success.id);
      }
      w = { player, victim, serverId, accountId: account.id, requestIds };
    });
    afterAll(() => t.close());

    it('answers 401 to an anonymous caller and 403 to a player on every call, and nothing changes', async () => {
      const before = await snapshot();
      const list = calls(w);
      expect(list).toHaveLength(count);
      for (const [method, url, payload] of list) {
        const anon = await t.app.inject({ method, url, ...(payload ? { payload } : {}) });
        expect(anon.statusCode, `${method} ${url} anonymous`).toBe(401);
        expect(anon.json().message).toMatch(/вход/);
        const bad = await t.app.inject({ method, url, headers: { authorization: 'Bearer not-a-token' }, ...(payload ? { payload } : {}) });
        expect(bad.statusCode, `${method} ${url} bad token`).toBe(401);
        const asPlayer = await t.app.inject({ method, url, headers: w.player.auth, ...(payload ? { payload } : {}) });
        expect(asPlayer.statusCode, `${method} ${url} player`).toBe(403);
        expect(asPlayer.json()).toEqual({ message: 'Недостаточно прав для этого действия' });
      }
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a blocked admin like anyone signed out', async () => {
      const blockedAdmin = await createUser(t.db.kysely, { admin: true });
      await t.db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', blockedAdmin.id).execute();
      const before = await snapshot();
      for (const [method, url, payload] of calls(w)) {
        const res = await t.app.inject({ method, url, headers: blockedAdmin.auth, ...(payload ? { payload } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('refuses an admin without TOTP on with two_factor_setup_required (PRODUCT.md section 7)', async () => {
      const bare = await createUser(t.db.kysely, { admin: true, totp: false });
      const before = await snapshot();
      for (const [method, url, payload] of calls(w)) {
        const res = await t.app.inject({ method, url, headers: bare.auth, ...(payload ? { payload } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().two_factor_setup_required, `${method} ${url}`).toBe(true);
      }
      expect(await snapshot()).toEqual(before);
    });

    more?.(() => ({ t, w }));
  });
}
