import { realtimeChannelFor, type RealtimeMessage } from '@adena/contract';
import { sql } from 'kysely';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { hashToken } from '../../lib/tokens';
import { totpCode } from '../two-factor/totp';
import { codeHash } from './code-flows';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';

const KK = 1_000_000;

describe.each(DB_KINDS)("the operators' users on %s", (kind) => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof createUser>>;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers: Record<string, string> = admin.auth) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const auditOf = async (entityType: string, entityId: number | string) =>
    (await call('GET', `/api/admin/audit_log?entity_type=${entityType}&entity_id=${entityId}`)).json().data;

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await createUser(t.db.kysely, { admin: true, name: 'Оператор' });
  });
  afterAll(() => t.close());

  describe('users', () => {
    let player: Awaited<ReturnType<typeof createUser>>;
    beforeAll(async () => {
      player = await createUser(t.db.kysely, { email: 'seller.ivan@example.com', name: 'Иван Продавец' });
      await t.db.kysely
        .updateTable('users')
        .set({ phone: '+79001234567', telegram_id: 777000111, discord_id: '42424242' })
        .where('id', '=', player.id)
        .execute();
    });

    it.each([
      ['email part', 'seller.ivan'],
      ['email in other case', 'SELLER.IVAN@example.com'],
      ['phone', '9001234567'],
      ['phone as operators type it, with 8', '8 900 123-45-67'],
      ['phone with 8 and no spaces', '89001234567'],
      ['phone with +7 and brackets', '+7 (900) 123 45 67'],
      ['name', 'продавец'],
      ['Telegram id', '777000111'],
      ['Discord id', '42424242'],
    ])('finds a player by %s', async (_what, q) => {
      const res = await call('GET', `/api/admin/users?q=${encodeURIComponent(q)}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.data.map((u: { id: number }) => u.id)).toContain(player.id);
      const found = body.data.find((u: { id: number }) => u.id === player.id);
      expect(found).toMatchObject({ telegram_id: '777000111', discord_id: '42424242', blocked_at: null, admin: false });
    });

    it('treats % and _ in a search literally', async () => {
      const body = (await call('GET', '/api/admin/users?q=%25')).json();
      expect(body.total).toBe(0);
      const odd = await createUser(t.db.kysely, { name: 'Dark_Knight (x*)' });
      const underscore = (await call('GET', `/api/admin/users?q=${encodeURIComponent('k_k')}`)).json();
      expect(underscore.data.map((u: { id: number }) => u.id)).toContain(odd.id);
      const special = await call('GET', `/api/admin/users?q=${encodeURIComponent('(x*)')}`);
      expect(special.statusCode).toBe(200);
      expect(special.json().data.map((u: { id: number }) => u.id)).toEqual([odd.id]);
      expect((await call('GET', `/api/admin/users?q=${encodeURIComponent('dark.knight')}`)).json().total).toBe(0);
      // Brackets and hyphens are dropped from the phone part only: alone they matched every user with a phone.
      for (const q of ['-', '( )', '()', '+']) {
        const ids = (await call('GET', `/api/admin/users?q=${encodeURIComponent(q)}`)).json().data.map((u: { id: number }) => u.id);
        expect(ids, q).not.toContain(player.id);
      }
      expect((await call('GET', `/api/admin/users?q=${encodeURIComponent('(x')}`)).json().data.map((u: { id: number }) => u.id)).toEqual([odd.id]);
    });

    it('pages the list', async () => {
      for (let i = 0; i < 3; i++) await createUser(t.db.kysely, { name: `Страничный ${i}` });
      const first = (await call('GET', '/api/admin/users?q=Страничный&per_page=2&page=1')).json();
      const second = (await call('GET', '/api/admin/users?q=Страничный&per_page=2&page=2')).json();
      expect(first.total).toBe(3);
      expect(first.data).toHaveLength(2);
      expect(second.data).toHaveLength(1);
    });

    it('pages under before_id: a user who signs up between page 1 and page 2 repeats nobody on page 2, with a search or without', async () => {
      for (let i = 0; i < 4; i++) await createUser(t.db.kysely, { name: `Якорный ${i}` });
      let n = 4;
      for (const filter of ['', `&q=${encodeURIComponent('якорный')}`]) {
        const first = (await call('GET', `/api/admin/users?per_page=2&page=1${filter}`)).json();
        expect(first.data).toHaveLength(2);
        const anchor: number = first.data[0].id;
        await createUser(t.db.kysely, { name: `Якорный ${n++}` });
        // Without the anchor page 2 starts with page 1's last user again: as before.
        const drifted = (await call('GET', `/api/admin/users?per_page=2&page=2${filter}`)).json();
        expect(drifted.data[0].id).toBe(first.data[1].id);
        const second = (await call('GET', `/api/admin/users?per_page=2&page=2&before_id=${anchor}${filter}`)).json();
        expect(second.data).toHaveLength(2);
        const firstIds = first.data.map((u: { id: number }) => u.id);
        const secondIds = second.data.map((u: { id: number }) => u.id);
        expect(secondIds.some((id: number) => firstIds.includes(id))).toBe(false);
        expect(Math.max(...secondIds)).toBeLessThan(Math.min(...firstIds));
        expect(second.total).toBe(first.total);
        expect(drifted.total).toBe(first.total + 1);
      }
      // A role filter narrows under the anchor too: the operators as they stood.
      const admins = (await call('GET', '/api/admin/users?role=admin&per_page=100')).json();
      const newer = await createUser(t.db.kysely, { admin: true });
      const anchored = (await call('GET', `/api/admin/users?role=admin&per_page=100&before_id=${admins.data[0].id}`)).json();
      expect(anchored).toEqual(admins);
      expect((await call('GET', '/api/admin/users?role=admin&per_page=100')).json().data[0].id).toBe(newer.id);
    });

    it('answers 422 with a Russian message to a bad before_id', async () => {
      for (const bad of ['0', '-3', 'abc', '1.5', '2147483648']) {
        const res = await call('GET', `/api/admin/users?before_id=${bad}`);
        expect(res.statusCode, bad).toBe(422);
        expect(res.json().errors.before_id).toEqual(['Некорректный идентификатор']);
      }
    });

    it("shows one player's wallets, requests and ledger entries", async () => {
      const server = await firstServerId(t.db.kysely);
      const wallet = await createWallet(t.db.kysely, player.id, server, 'IvanNick');
      await fund(t.db.kysely, wallet, 5n * BigInt(KK));
      await t.db.kysely
        .insertInto('balance_requests')
        .values({ user_id: player.id, wallet_id: wallet.id, gamesserver_id: server, type: 'input', currency_type: 1, amount: 2n * BigInt(KK), nick: 'IvanNick', cashier_nick: 'AdenaKassa' })
        .execute();
      const res = await call('GET', `/api/admin/users/${player.id}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.user).toMatchObject({ id: player.id, email: 'seller.ivan@example.com' });
      expect(body.wallets).toEqual([expect.objectContaining({ id: wallet.id, nick: 'IvanNick', balance: 5 * KK, balance_second: 0 })]);
      expect(body.wallets[0].accounts['1']).toEqual(expect.any(Number));
      expect(body.requests).toEqual([expect.objectContaining({ type: 'input', amount: 2 * KK, status: 'pending', hidden: false })]);
      expect(body.ledger).toEqual([expect.objectContaining({ transaction_kind: 'test_funding', amount: 5 * KK, balance_after: 5 * KK })]);
      expect(body.codes).toEqual([]);
      expect((await call('GET', '/api/admin/users/999999')).statusCode).toBe(404);
    });

    it('grants and revokes admin, never for oneself, each audited', async () => {
      // With TOTP on already: a new operator without it is walked through setup first (two-factor tests).
      const other = await createUser(t.db.kysely, { totp: true });
      // Making an operator takes the operator's own code: a stolen operator session alone cannot.
      const bare = await call('POST', `/api/admin/users/${other.id}/admin`, { admin: true });
      expect(bare.statusCode).toBe(403);
      expect(bare.json()).toMatchObject({ two_factor_required: true });
      expect((await t.db.kysely.selectFrom('users').select('admin').where('id', '=', other.id).executeTakeFirstOrThrow()).admin).toBe(false);
      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', admin.id).execute();
      const grant = await call('POST', `/api/admin/users/${other.id}/admin`, { admin: true }, { ...admin.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
      expect(grant.json().success.admin).toBe(true);
      expect((await call('GET', '/api/admin/dashboard', undefined, other.auth)).statusCode).toBe(200);
      const revoke = await call('POST', `/api/admin/users/${other.id}/admin`, { admin: false });
      expect(revoke.json().success.admin).toBe(false);
      expect((await call('GET', '/api/admin/dashboard', undefined, other.auth)).statusCode).toBe(403);
      const self = await call('POST', `/api/admin/users/${admin.id}/admin`, { admin: false });
      expect(self.statusCode).toBe(409);
      const actions = (await auditOf('user', other.id)).map((e: { action: string }) => e.action);
      expect(actions).toEqual(['user.admin_revoke', 'user.admin_grant']);
    });

    it("unblocks a blocked operator only with the operator's own code, as making one does; a player without a code", async () => {
      const a = await createUser(t.db.kysely, { admin: true });
      const b = await createUser(t.db.kysely, { admin: true });
      const post = (url: string, payload: object, headers: Record<string, string> = {}) => call('POST', url, payload, { ...a.auth, ...headers });
      expect((await post(`/api/admin/users/${b.id}/block`, { reason: 'угнан' })).statusCode).toBe(200);
      const blockedAt = async () => (await t.db.kysely.selectFrom('users').select('blocked_at').where('id', '=', b.id).executeTakeFirstOrThrow()).blocked_at;

      // The admin flag stays on a blocked operator: a stolen operator session alone must not bring one back.
      for (const headers of [{}, { 'x-two-factor-code': '000000' }] as Record<string, string>[]) {
        const refused = await post(`/api/admin/users/${b.id}/unblock`, {}, headers);
        expect(refused.statusCode).toBe(403);
        expect(refused.json().two_factor_required).toBe(true);
      }
      expect(await blockedAt()).not.toBeNull();

      const done = await post(`/api/admin/users/${b.id}/unblock`, {}, { 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
      expect(done.statusCode).toBe(200);
      expect(done.json().success).toMatchObject({ id: b.id, admin: true, blocked_at: null });
      expect(await blockedAt()).toBeNull();
      expect((await auditOf('user', b.id)).map((e: { action: string }) => e.action)).toEqual(['user.unblock', 'user.block']);

      // A player needs no code.
      const p = await createUser(t.db.kysely);
      expect((await post(`/api/admin/users/${p.id}/block`, { reason: 'проверка' })).statusCode).toBe(200);
      expect((await post(`/api/admin/users/${p.id}/unblock`, {})).statusCode).toBe(200);
    });

    it.runIf(kind === 'postgres')('a blocked player made an operator while the unblock waits for their row is not unblocked without the code', async () => {
      const a = await createUser(t.db.kysely, { admin: true });
      const b = await createUser(t.db.kysely);
      await t.db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', b.id).execute();
      // The unblock saw a player (no code asked) and waits for the row; another operator makes them one meanwhile.
      const hold = await holdLocks(
        t.db.kysely,
        (trx) => trx.selectFrom('users').select('id').where('id', '=', b.id).forUpdate().execute(),
        (trx) => trx.updateTable('users').set({ admin: true }).where('id', '=', b.id).execute(),
      );
      const unblock = call('POST', `/api/admin/users/${b.id}/unblock`, {}, a.auth);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) > 0 ? true : undefined), 'the unblock to wait');
      await hold.release();
      const res = await unblock;
      expect(res.statusCode).toBe(403);
      expect(res.json().two_factor_required).toBe(true);
      expect((await t.db.kysely.selectFrom('users').select('blocked_at').where('id', '=', b.id).executeTakeFirstOrThrow()).blocked_at).not.toBeNull();
    });

    it('two operators revoking or blocking each other at the same moment: one of them stays an operator, able to act', async () => {
      const adminsLeft = async (ids: number[]) =>
        (await t.db.kysely.selectFrom('users').select('id').where('id', 'in', ids).where('admin', '=', true).where('blocked_at', 'is', null).execute()).map((u) => u.id);
      for (const action of ['revoke', 'block'] as const) {
        for (let round = 0; round < 5; round++) {
          const a = await createUser(t.db.kysely, { admin: true, totp: true });
          const b = await createUser(t.db.kysely, { admin: true, totp: true });
          const act = (by: typeof a, target: typeof b) =>
            action === 'revoke'
              ? call('POST', `/api/admin/users/${target.id}/admin`, { admin: false }, by.auth)
              : call('POST', `/api/admin/users/${target.id}/block`, { reason: 'проверка' }, by.auth);
          const answers = await Promise.all([act(a, b), act(b, a)]);
          // Whichever went first won; the other found itself no longer an operator (403), or, blocked, signed out (401).
          expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
          expect(answers.find((r) => r.statusCode !== 200)?.statusCode).toBeOneOf([401, 403]);
          const left = await adminsLeft([a.id, b.id]);
          expect(left).toHaveLength(1);
          const survivor = left[0] === a.id ? a : b;
          expect((await call('GET', '/api/admin/dashboard', undefined, survivor.auth)).statusCode).toBe(200);
        }
      }
    });

    it("turns a player's TOTP off with the operator's own code: recovery codes gone, every session ended, audited with the reason", async () => {
      const operator = await createUser(t.db.kysely, { admin: true, name: 'Оператор поддержки' });
      const owner = await createUser(t.db.kysely, { totp: true });
      await t.db.kysely.insertInto('recovery_codes').values({ user_id: owner.id, code_hash: 'h' }).execute();
      const off = (headers: Record<string, string>) => call('POST', `/api/admin/users/${owner.id}/two_factor_off`, { reason: 'Потерял телефон, личность проверена' }, { ...operator.auth, ...headers });

      // A stolen operator session alone cannot do it.
      for (const headers of [{}, { 'x-two-factor-code': '000000' }] as Record<string, string>[]) {
        const refused = await off(headers);
        expect(refused.statusCode).toBe(403);
        expect(refused.json().two_factor_required).toBe(true);
      }
      expect((await call('GET', '/api/user', undefined, owner.auth)).json().two_factor).toBe(true);

      const done = await off({ 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
      expect(done.statusCode).toBe(200);
      expect(done.json().success).toMatchObject({ id: owner.id, two_factor: false });
      const row = await t.db.kysely.selectFrom('users').select(['totp_secret', 'totp_pending_secret']).where('id', '=', owner.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ totp_secret: null, totp_pending_secret: null });
      expect(await t.db.kysely.selectFrom('recovery_codes').select('id').where('user_id', '=', owner.id).execute()).toEqual([]);
      // Whoever held a session of the account (the thief who turned TOTP on, say) is signed out.
      expect((await call('GET', '/api/user', undefined, owner.auth)).statusCode).toBe(401);
      const [entry] = await auditOf('user', owner.id);
      expect(entry).toMatchObject({ action: 'user.two_factor_off', before: { two_factor: true }, after: { two_factor: false, reason: 'Потерял телефон, личность проверена' } });

      // Nothing to turn off any more; and never one's own.
      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', operator.id).execute();
      expect((await off({ 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) })).statusCode).toBe(409);
      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', operator.id).execute();
      const self = await call('POST', `/api/admin/users/${operator.id}/two_factor_off`, { reason: 'сам' }, { ...operator.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
      expect(self.statusCode).toBe(409);
    });

    it("support's rescue from a thief's authenticator also kills the seller key and the passkey the thief made with it", async () => {
      const operator = await createUser(t.db.kysely, { admin: true, name: 'Оператор поддержки' });
      // The thief turned TOTP on with their own authenticator (TEST_TOTP_SECRET here) and, with its codes,
      // minted a seller key and added a passkey: both would sign them back in or issue codes after the rescue.
      const owner = await createUser(t.db.kysely, { totp: true });
      const minted = await call('POST', '/api/api_keys', { name: 'вор' }, { ...owner.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
      expect(minted.statusCode).toBe(200);
      const key = { authorization: `Bearer ${minted.json().key}` };
      await t.db.kysely
        .insertInto('passkeys')
        .values({ user_id: owner.id, credential_id: `thief-${owner.id}`, public_key: new Uint8Array([1, 2, 3]), counter: 0, transports: [], name: 'вор' })
        .execute();
      expect((await call('GET', '/api/v1/balance?gamesserver_id=1', undefined, key)).statusCode).toBe(200);
      // …and linked their own Telegram chat for the balance and request notices.
      await t.db.kysely.updateTable('users').set({ telegram_chat_id: 777000111n }).where('id', '=', owner.id).execute();
      // …and set the seller's webhook to their server (the code's step is spent: mark it unused for the second call).
      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', owner.id).execute();
      const hook = await call('PUT', '/api/webhook', { url: 'https://93.184.216.34/thief', events: ['code.activated'] }, { ...owner.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
      expect(hook.statusCode).toBe(200);

      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', operator.id).execute();
      const done = await call('POST', `/api/admin/users/${owner.id}/two_factor_off`, { reason: 'В аккаунте чужой код, владелец проверен' }, {
        ...operator.auth,
        'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()),
      });
      expect(done.statusCode).toBe(200);
      expect((await call('GET', '/api/v1/balance?gamesserver_id=1', undefined, key)).statusCode).toBe(401);
      const issued = await call('POST', '/api/v1/codes', { gamesserver_id: 1, nominal: 1000, count: 1 }, { ...key, 'idempotency-key': 'after-rescue' });
      expect(issued.statusCode).toBe(401);
      expect(await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', owner.id).where('revoked_at', 'is', null).execute()).toEqual([]);
      expect(await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', owner.id).execute()).toEqual([]);
      const [entry] = await auditOf('user', owner.id);
      expect(entry).toMatchObject({
        action: 'user.two_factor_off',
        after: { two_factor: false, api_keys_revoked: 1, passkeys_removed: 1, telegram_chat_unlinked: true, webhook_removed: true },
      });
      expect(await t.db.kysely.selectFrom('webhooks').select('user_id').where('user_id', '=', owner.id).execute()).toEqual([]);
      const chat = await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', owner.id).executeTakeFirstOrThrow();
      expect(chat.telegram_chat_id).toBeNull();
    });

    it('a block of a stolen account with revoke_keys kills its seller keys and passkeys for good; a plain block brings them back on unblock', async () => {
      for (const revoke of [true, false]) {
        const owner = await createUser(t.db.kysely);
        const minted = await call('POST', '/api/api_keys', { name: 'ключ' }, owner.auth);
        const key = { authorization: `Bearer ${minted.json().key}` };
        await t.db.kysely
          .insertInto('passkeys')
          .values({ user_id: owner.id, credential_id: `block-${owner.id}`, public_key: new Uint8Array([1, 2, 3]), counter: 0, transports: [], name: 'телефон' })
          .execute();
        expect((await call('PUT', '/api/webhook', { url: 'https://93.184.216.34/hook', events: ['code.activated'] }, owner.auth)).statusCode).toBe(200);
        const blocked = await call('POST', `/api/admin/users/${owner.id}/block`, { reason: revoke ? 'Аккаунт угнан' : 'Спор по заказу', ...(revoke ? { revoke_keys: true } : {}) });
        expect(blocked.statusCode).toBe(200);
        expect((await call('GET', '/api/v1/balance?gamesserver_id=1', undefined, key)).statusCode).toBe(401);
        expect((await call('POST', `/api/admin/users/${owner.id}/unblock`, {})).statusCode).toBe(200);
        const after = await call('GET', '/api/v1/balance?gamesserver_id=1', undefined, key);
        const passkeys = await t.db.kysely.selectFrom('passkeys').select('id').where('user_id', '=', owner.id).execute();
        const hooks = await t.db.kysely.selectFrom('webhooks').select('url').where('user_id', '=', owner.id).execute();
        const [, blockEntry] = await auditOf('user', owner.id);
        expect(blockEntry.action).toBe('user.block');
        if (revoke) {
          expect(after.statusCode).toBe(401);
          expect(passkeys).toEqual([]);
          expect(hooks).toEqual([]);
          expect(blockEntry.after).toMatchObject({ api_keys_revoked: 1, passkeys_removed: 1, webhook_removed: true });
        } else {
          expect(after.statusCode).toBe(200);
          expect(passkeys).toHaveLength(1);
          expect(hooks).toHaveLength(1);
          expect(blockEntry.after).not.toHaveProperty('api_keys_revoked');
        }
      }
      // Only a boolean.
      const bad = await call('POST', `/api/admin/users/${player.id}/block`, { reason: 'x', revoke_keys: 'yes' });
      expect(bad.statusCode).toBe(422);

      // Blocked first, found stolen later: the same call on the blocked account removes them, without an unblock in between.
      const late = await createUser(t.db.kysely);
      const lateKey = { authorization: `Bearer ${(await call('POST', '/api/api_keys', { name: 'ключ' }, late.auth)).json().key}` };
      expect((await call('POST', `/api/admin/users/${late.id}/block`, { reason: 'Проверка' })).statusCode).toBe(200);
      const again = await call('POST', `/api/admin/users/${late.id}/block`, { reason: 'Оказалось, угнан', revoke_keys: true });
      expect(again.statusCode).toBe(200);
      expect(again.json().success.blocked_at).not.toBeNull();
      const [entry] = await auditOf('user', late.id);
      expect(entry).toMatchObject({ action: 'user.block', after: { api_keys_revoked: 1, reason: 'Оказалось, угнан' } });
      expect((await call('POST', `/api/admin/users/${late.id}/unblock`, {})).statusCode).toBe(200);
      expect((await call('GET', '/api/v1/balance?gamesserver_id=1', undefined, lateKey)).statusCode).toBe(401);
    });

    // Stress review 2026-11-28: the Discord unlink (`discord_id`, a unique key) takes the key lock on the user's row that
    // every insert into `tokens` waits for (its foreign key). A socket token or a reset code's new-password token under way
    // held its session's or its flow's row and waited for that lock; the block, ending sessions and closing reset flows
    // after it, waited for those rows, and one of the two answered 503. The sessions end and the flows close first now.
    it.runIf(kind === 'postgres').each([
      ['a block with revoke_keys', 'a socket token'],
      ["support's TOTP rescue", 'a socket token'],
      ['a block with revoke_keys', "a reset code's check"],
      ["support's TOTP rescue", "a reset code's check"],
    ])('%s of an account linked to Discord by its email while the player asks for %s: no deadlock, the call is refused', async (action, asked) => {
      const rescue = action.includes('TOTP');
      const operator = await createUser(t.db.kysely, { admin: true });
      const p = await createUser(t.db.kysely, { totp: rescue });
      const discordId = `9${p.id}${Date.now()}`;
      await t.db.kysely.updateTable('users').set({ discord_id: discordId, discord_linked_by_email: true }).where('id', '=', p.id).execute();
      await t.db.kysely.insertInto('known_browsers').values({ user_id: p.id, browser_hash: 'b'.repeat(64) }).execute();
      const flowToken = `flow-${p.id}-${Date.now()}`;
      await t.db.kysely
        .insertInto('auth_flows')
        .values({
          token_hash: hashToken(flowToken),
          purpose: 'reset',
          channel: 'email',
          address: p.email!,
          user_id: p.id,
          code_hash: codeHash(flowToken, '123456'),
          password_hash: null,
          name: null,
          expires_at: new Date(Date.now() + 10 * 60_000),
          last_sent_at: new Date(),
          browser_hash: null,
        })
        .execute();
      // The change has unlinked Discord and waits at the remembered browsers (the last of the leftovers).
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('known_browsers').select('user_id').where('user_id', '=', p.id).forUpdate().execute());
      const change = rescue
        ? call('POST', `/api/admin/users/${p.id}/two_factor_off`, { reason: 'Чужой код, владелец проверен' }, { ...operator.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) })
        : call('POST', `/api/admin/users/${p.id}/block`, { reason: 'Аккаунт угнан', revoke_keys: true }, operator.auth);
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%known_browsers%')) === 1 ? true : undefined), 'the change to wait at the browsers');
      const player =
        asked === 'a socket token'
          ? t.app.inject({ method: 'POST', url: '/api/ably-token', headers: p.auth, payload: {} })
          : t.app.inject({ method: 'POST', url: '/api/email_reset_password_code_check', payload: { email_reset_password_token: flowToken, code: '123456' } });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), "the player's call to wait as well");
      await hold.release();
      const [changed, refused] = await Promise.all([change, player]);
      expect([changed.statusCode, refused.statusCode]).not.toContain(503);
      // The session was ended, or the reset closed, before the call reached it.
      expect([changed.statusCode, refused.statusCode]).toEqual([200, asked === 'a socket token' ? 401 : 422]);
      expect(await t.db.kysely.selectFrom('tokens').select('kind').where('user_id', '=', p.id).execute()).toEqual([]);
      expect((await t.db.kysely.selectFrom('users').select('discord_id').where('id', '=', p.id).executeTakeFirstOrThrow()).discord_id).toBeNull();
      const [entry] = await auditOf('user', p.id);
      expect(entry).toMatchObject({ action: rescue ? 'user.two_factor_off' : 'user.block', after: { discord_unlinked: true } });
    });

    it('grants VIP until a future date and revokes it; a past date is refused', async () => {
      const until = new Date(Date.now() + 10 * 86_400_000).toISOString();
      const grant = await call('POST', `/api/admin/users/${player.id}/vip`, { vip_until: until });
      expect(grant.statusCode).toBe(200);
      expect(grant.json().success).toMatchObject({ vip: true, vip_until: until });
      const past = await call('POST', `/api/admin/users/${player.id}/vip`, { vip_until: '2020-01-01T00:00:00Z' });
      expect(past.statusCode).toBe(422);
      expect(past.json().errors.vip_until[0]).toMatch(/в будущем/);
      const revoke = await call('POST', `/api/admin/users/${player.id}/vip`, { vip_until: null });
      expect(revoke.json().success).toMatchObject({ vip: false, vip_until: null });
      const [last] = await auditOf('user', player.id);
      expect(last).toMatchObject({ action: 'user.vip_revoke', before: { vip_until: until }, after: { vip_until: null } });
    });

    // PGlite runs one transaction at a time: the held lock would hold the call for good.
    it.skipIf(kind === 'pglite')("an operator's change of a player waits for the same operator's act on that player's request instead of deadlocking with it", async () => {
      const p = await createUser(t.db.kysely);
      // Created after the player: the change locks the player's row first, then the operator's.
      const op = await createUser(t.db.kysely, { admin: true, name: 'Оператор смены' });
      // The operator completing the player's request: their own row held FOR SHARE (shift.holdOperator),
      // then a write that refers to the player (the wallet's flag, a ledger row) takes the player's row FOR KEY SHARE.
      const acting = await holdLocks(
        t.db.kysely,
        (trx) => sql`SELECT 1 FROM users WHERE id = ${op.id} FOR SHARE`.execute(trx),
        (trx) => sql`SELECT 1 FROM users WHERE id = ${p.id} FOR KEY SHARE`.execute(trx),
      );
      const vip = call('POST', `/api/admin/users/${p.id}/vip`, { vip_until: new Date(Date.now() + 10 * 86_400_000).toISOString() }, op.auth);
      while ((await lockWaits(t.db.kysely, '%users%')) === 0) await new Promise((r) => setTimeout(r, 20));
      await acting.release();
      expect((await vip).statusCode).toBe(200);
    });

    it('never grants VIP to oneself: the lower fee and the queue priority are paid for, so another operator gives them', async () => {
      const before = await t.db.kysely.selectFrom('users').select('vip_until').where('id', '=', admin.id).executeTakeFirstOrThrow();
      const self = await call('POST', `/api/admin/users/${admin.id}/vip`, { vip_until: new Date(Date.now() + 30 * 86_400_000).toISOString() });
      expect(self.statusCode).toBe(409);
      expect(self.json().message).toMatch(/VIP/);
      // A 409 naming no field still carries `errors` (PRODUCT.md section 3: "409 with message, errors").
      expect(self.json().errors).toEqual({});
      expect(await t.db.kysely.selectFrom('users').select('vip_until').where('id', '=', admin.id).executeTakeFirstOrThrow()).toEqual(before);
      expect((await auditOf('user', admin.id)).filter((e: { action: string }) => e.action.startsWith('user.vip'))).toEqual([]);
    });

    it("blocks a player: every token ends, the open socket gets session_ended and is dropped; unblock lets a new session work", async () => {
      const victim = await createUser(t.db.kysely);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      const rt = (await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: victim.auth, payload: {} })).json();
      const socket: Socket = io(url, { path: '/socket.io/', auth: { token: rt.token }, reconnection: false, transports: ['websocket'] });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        expect(await socket.timeout(5000).emitWithAck('subscribe', { channel: realtimeChannelFor(victim.id) })).toEqual({ ok: true });
        const message = new Promise<RealtimeMessage>((resolve) => socket.once('message', resolve));
        const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));

        const res = await call('POST', `/api/admin/users/${victim.id}/block`, { reason: 'Мошенничество с кодами' });
        expect(res.statusCode).toBe(200);
        expect(res.json().success.blocked_at).toEqual(expect.any(String));
        expect(await message).toMatchObject({ name: 'session_ended', data: { reason: 'blocked' } });
        expect(await dropped).toBe('io server disconnect');
      } finally {
        socket.disconnect();
      }
      // The old token is gone, not merely refused.
      expect((await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: victim.auth, payload: {} })).statusCode).toBe(401);
      const tokens = await t.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', victim.id).execute();
      expect(tokens).toEqual([]);
      const [entry] = await auditOf('user', victim.id);
      expect(entry).toMatchObject({ action: 'user.block', before: { blocked_at: null }, after: { reason: 'Мошенничество с кодами' } });

      // A token made while blocked (any sign-in path) is refused by auth's lookup.
      const whileBlocked = await newSession(victim.id);
      expect((await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: whileBlocked, payload: {} })).statusCode).toBe(401);

      const unblock = await call('POST', `/api/admin/users/${victim.id}/unblock`, {});
      expect(unblock.json().success.blocked_at).toBeNull();
      expect((await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: whileBlocked, payload: {} })).statusCode).toBe(200);
    });

    it('a player blocked here is refused sign-in with the Russian message, and signs in again once unblocked', async (ctx) => {
      // Sign-in itself is the auth issue's; reported as skipped, not passed, until POST /api/login exists.
      if (!t.app.hasRoute({ method: 'POST', url: '/api/login' })) return ctx.skip('POST /api/login does not exist yet');
      const { hashPassword } = await import('../../lib/password');
      const password = 'correct horse battery';
      const u = await createUser(t.db.kysely);
      await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword(password) }).where('id', '=', u.id).execute();
      const login = () => t.app.inject({ method: 'POST', url: '/api/login', payload: { email: u.email, password } });
      expect((await login()).statusCode).toBe(200);
      expect((await call('POST', `/api/admin/users/${u.id}/block`, { reason: 'тест входа' })).statusCode).toBe(200);
      const refused = await login();
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ message: 'Ваш аккаунт заблокирован. Обратитесь в поддержку' });
      expect((await call('POST', `/api/admin/users/${u.id}/unblock`, {})).statusCode).toBe(200);
      expect((await login()).statusCode).toBe(200);
    });

    it('never blocks oneself', async () => {
      const res = await call('POST', `/api/admin/users/${admin.id}/block`, { reason: 'тест' });
      expect(res.statusCode).toBe(409);
      const row = await t.db.kysely.selectFrom('users').select('blocked_at').where('id', '=', admin.id).executeTakeFirstOrThrow();
      expect(row.blocked_at).toBeNull();
    });

    async function newSession(userId: number) {
      const { newToken, hashToken } = await import('../../lib/tokens');
      const token = newToken();
      await t.db.kysely.insertInto('tokens').values({ user_id: userId, kind: 'access', token_hash: hashToken(token) }).execute();
      return { authorization: `Bearer ${token}` };
    }
  });
});
