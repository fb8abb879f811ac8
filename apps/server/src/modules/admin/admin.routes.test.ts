import { type AdminGamesserver, realtimeChannelFor, type RealtimeMessage } from '@adena/contract';
import { sql } from 'kysely';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;

const newServer = (name: string) => ({
  name,
  active: true,
  sort_order: 10,
  cashier_nick: 'Kassir',
  limits: {
    input: { '1': { min: KK, max: 1000 * KK }, '2': { min: 1, max: 1000 } },
    output: { '1': { min: KK, max: 500 * KK }, '2': { min: 1, max: 500 } },
  },
  code_fee_bp: 250,
  vip_code_fee_bp: 100,
  min_nominal: KK,
  standard_nominals: [10 * KK, KK, 5 * KK],
  vip_price: 300,
  vip_period_days: 30,
});

describe.each(DB_KINDS)('the admin area on %s', (kind) => {
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

  describe('game servers', () => {
    it('lists every server, inactive ones too, in their order', async () => {
      await t.db.kysely.updateTable('gamesservers').set({ active: false }).where('name', '=', 'E-Global x1').execute();
      const res = await call('GET', '/api/admin/gamesservers');
      expect(res.statusCode).toBe(200);
      const list: AdminGamesserver[] = res.json();
      expect(list.map((s) => [s.name, s.active])).toEqual([
        ['Scryde x50', true],
        ['Asterios x5', true],
        ['E-Global x1', false],
      ]);
      expect(list[0]).toMatchObject({ code_fee_bp: 300, vip_code_fee_bp: 100, min_nominal: KK, vip_price: 300, vip_period_days: 30 });
      await t.db.kysely.updateTable('gamesservers').set({ active: true }).where('name', '=', 'E-Global x1').execute();
    });

    it('creates a server that players see at once, with the creation in the audit log', async () => {
      const res = await call('POST', '/api/admin/gamesservers', newServer('Fresh x10'));
      expect(res.statusCode).toBe(200);
      const created: AdminGamesserver = res.json().success;
      expect(created).toMatchObject({ name: 'Fresh x10', code_fee_bp: 250, standard_nominals: [KK, 5 * KK, 10 * KK] });
      const pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.map((s: { name: string }) => s.name)).toContain('Fresh x10');
      const [entry] = await auditOf('gamesserver', created.id);
      expect(entry).toMatchObject({ action: 'gamesserver.create', admin_id: admin.id, admin_name: 'Оператор', before: null });
      expect(entry.after).toMatchObject({ name: 'Fresh x10', code_fee_bp: 250 });
    });

    it('refuses a second server with the same name (any case) with 409', async () => {
      const res = await call('POST', '/api/admin/gamesservers', newServer('fresh X10'));
      expect(res.statusCode).toBe(409);
      expect(res.json().errors.name[0]).toMatch(/уже есть/);
    });

    it('refuses bad settings with Russian messages per field and changes nothing', async () => {
      const bad = newServer('Broken');
      bad.limits.input['1'] = { min: 10 * KK, max: KK };
      bad.code_fee_bp = 10_001;
      bad.vip_price = -5;
      bad.standard_nominals = [KK / 2];
      const res = await call('POST', '/api/admin/gamesservers', bad);
      expect(res.statusCode).toBe(422);
      const errors = res.json().errors;
      expect(errors['limits.input.1.max']).toEqual(['Максимум не меньше минимума']);
      expect(errors.code_fee_bp[0]).toMatch(/От 0 до 10000/);
      expect(errors.vip_price[0]).toMatch(/больше нуля/);
      const none = await t.db.kysely.selectFrom('gamesservers').select('id').where('name', '=', 'Broken').execute();
      expect(none).toEqual([]);
    });

    it('changes the code fee, and GET /api/gamesservers answers the new fee at once, audited before and after', async () => {
      const id = await firstServerId(t.db.kysely);
      // Warm the public list's cache so that a stale answer would show.
      await t.app.inject({ method: 'GET', url: '/api/gamesservers' });
      const res = await call('PUT', `/api/admin/gamesservers/${id}`, { code_fee_bp: 450, cashier_nick: 'NewKassa' });
      expect(res.statusCode).toBe(200);
      expect(res.json().success).toMatchObject({ code_fee_bp: 450, cashier_nick: 'NewKassa', vip_code_fee_bp: 100 });
      const pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.find((s: { id: number }) => s.id === id)).toMatchObject({ code_fee_bp: 450, cashier_nick: 'NewKassa' });
      const [entry] = await auditOf('gamesserver', id);
      expect(entry.action).toBe('gamesserver.update');
      expect(entry.before).toMatchObject({ code_fee_bp: 300, cashier_nick: 'AdenaKassa' });
      expect(entry.after).toMatchObject({ code_fee_bp: 450, cashier_nick: 'NewKassa' });
    });

    it('checks the merged record: a VIP fee above the fee or a limit below its minimum is refused', async () => {
      const id = await firstServerId(t.db.kysely);
      const vip = await call('PUT', `/api/admin/gamesservers/${id}`, { vip_code_fee_bp: 5000 });
      expect(vip.statusCode).toBe(422);
      expect(vip.json().errors.vip_code_fee_bp).toEqual(['Комиссия для VIP не больше обычной']);
      const nominal = await call('PUT', `/api/admin/gamesservers/${id}`, { min_nominal: 7 * KK });
      expect(nominal.statusCode).toBe(422);
      expect(Object.keys(nominal.json().errors)[0]).toMatch(/^standard_nominals\.\d$/);
      const row = await t.db.kysely.selectFrom('gamesservers').select(['vip_code_fee_bp', 'min_nominal']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual({ vip_code_fee_bp: 100, min_nominal: BigInt(KK) });
    });

    it('deactivates and reorders: players stop seeing the server at once', async () => {
      const list: AdminGamesserver[] = (await call('GET', '/api/admin/gamesservers')).json();
      const target = list.find((s) => s.name === 'Asterios x5')!;
      expect((await call('PUT', `/api/admin/gamesservers/${target.id}`, { active: false, sort_order: 99 })).statusCode).toBe(200);
      let pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.map((s: { name: string }) => s.name)).not.toContain('Asterios x5');
      expect((await call('PUT', `/api/admin/gamesservers/${target.id}`, { active: true, sort_order: 2 })).statusCode).toBe(200);
      pub = (await t.app.inject({ method: 'GET', url: '/api/gamesservers' })).json();
      expect(pub.map((s: { name: string }) => s.name)).toContain('Asterios x5');
    });

    it('answers 404 for a server that does not exist', async () => {
      expect((await call('PUT', '/api/admin/gamesservers/999999', { code_fee_bp: 1 })).statusCode).toBe(404);
    });
  });

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
    });

    it('pages the list', async () => {
      for (let i = 0; i < 3; i++) await createUser(t.db.kysely, { name: `Страничный ${i}` });
      const first = (await call('GET', '/api/admin/users?q=Страничный&per_page=2&page=1')).json();
      const second = (await call('GET', '/api/admin/users?q=Страничный&per_page=2&page=2')).json();
      expect(first.total).toBe(3);
      expect(first.data).toHaveLength(2);
      expect(second.data).toHaveLength(1);
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
      const other = await createUser(t.db.kysely);
      const grant = await call('POST', `/api/admin/users/${other.id}/admin`, { admin: true });
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

  describe('ledger', () => {
    it('totals per server and currency: what players hold, what is owed, and the cash that balances it', async () => {
      const server = (await call('GET', '/api/admin/gamesservers')).json().find((s: AdminGamesserver) => s.name === 'E-Global x1');
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server.id);
      await fund(t.db.kysely, w, 3_000n);
      await fund(t.db.kysely, w, 40n, 2);
      const res = await call('GET', '/api/admin/ledger/totals');
      expect(res.statusCode).toBe(200);
      const rows = res.json().data.filter((r: { gamesserver_id: number }) => r.gamesserver_id === server.id);
      expect(rows).toEqual([
        expect.objectContaining({ currency_type: 1, wallets: 3_000, payout: 0, escrow: 0, fees: 0, cash: -3_000, owed: 3_000 }),
        expect.objectContaining({ currency_type: 2, wallets: 40, cash: -40, owed: 40 }),
      ]);
      expect(rows[0].accounts.cash).toEqual(expect.any(Number));
      expect(rows[0].accounts.escrow).toBeNull();
      expect((await auditLedger(t.db.kysely)).ok).toBe(true);
    });

    it("pages any account's entries, newest first, with its balance", async () => {
      const server = await firstServerId(t.db.kysely);
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server);
      for (const amount of [100n, 200n, 300n]) await fund(t.db.kysely, w, amount);
      const details = (await call('GET', `/api/admin/users/${p.id}`)).json();
      const accountId = details.wallets[0].accounts['1'];
      const page1 = (await call('GET', `/api/admin/ledger/accounts/${accountId}/entries?per_page=2`)).json();
      expect(page1.account).toMatchObject({ kind: 'wallet', user_id: p.id, wallet_id: w.id, balance: 600, currency_type: 1 });
      expect(page1.total).toBe(3);
      expect(page1.data.map((e: { amount: number; balance_after: number }) => [e.amount, e.balance_after])).toEqual([
        [300, 600],
        [200, 300],
      ]);
      const page2 = (await call('GET', `/api/admin/ledger/accounts/${accountId}/entries?per_page=2&page=2`)).json();
      expect(page2.data.map((e: { amount: number }) => e.amount)).toEqual([100]);
      expect((await call('GET', '/api/admin/ledger/accounts/999999/entries')).statusCode).toBe(404);
    });
  });

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

  describe('audit log', () => {
    it('filters by admin, entity and action, newest first', async () => {
      const byAction = (await call('GET', '/api/admin/audit_log?action=gamesserver.update')).json();
      expect(byAction.total).toBeGreaterThanOrEqual(3);
      expect(byAction.data.every((e: { action: string }) => e.action === 'gamesserver.update')).toBe(true);
      const ids = byAction.data.map((e: { id: number }) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const byAdmin = (await call('GET', `/api/admin/audit_log?admin_id=${admin.id}&per_page=100`)).json();
      expect(byAdmin.total).toBe(byAdmin.data.length);
      expect(byAdmin.data.every((e: { admin_id: number }) => e.admin_id === admin.id)).toBe(true);
      const other = (await call('GET', '/api/admin/audit_log?admin_id=999999')).json();
      expect(other).toEqual({ data: [], total: 0 });
    });
  });

  describe('dashboard', () => {
    it('shows pending requests per server, currency and direction, the oldest waiting, and the 24-hour median', async () => {
      await t.db.kysely.deleteFrom('balance_requests').execute();
      const server = await firstServerId(t.db.kysely);
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, server);
      const ago = (min: number) => new Date(Date.now() - min * 60_000);
      const base = { user_id: p.id, wallet_id: w.id, gamesserver_id: server, nick: 'Hero', cashier_nick: 'Kassa' };
      await t.db.kysely
        .insertInto('balance_requests')
        .values([
          { ...base, type: 'input', currency_type: 1, amount: 5n * BigInt(KK), created_at: ago(90) },
          { ...base, type: 'input', currency_type: 1, amount: 7n * BigInt(KK), created_at: ago(10) },
          { ...base, type: 'input', currency_type: 2, amount: 30n, created_at: ago(5) },
          { ...base, type: 'input', currency_type: 1, amount: 1n, status: 'completed', created_at: ago(40), processed_at: ago(30) },
          { ...base, type: 'input', currency_type: 1, amount: 1n, status: 'rejected', created_at: ago(60), processed_at: ago(30) },
          { ...base, type: 'input', currency_type: 1, amount: 1n, status: 'completed', created_at: ago(100), processed_at: ago(50) },
        ])
        .execute();
      const res = await call('GET', '/api/admin/dashboard');
      expect(res.statusCode).toBe(200);
      const d = res.json();
      expect(d.pending).toEqual([
        expect.objectContaining({ gamesserver_id: server, currency_type: 1, type: 'input', count: 2, sum: 12 * KK }),
        expect.objectContaining({ gamesserver_id: server, currency_type: 2, type: 'input', count: 1, sum: 30 }),
      ]);
      expect(d.oldest).toMatchObject({ gamesserver_id: server, amount: 5 * KK, type: 'input' });
      expect(d.oldest.waiting_minutes).toBeGreaterThanOrEqual(89);
      // Took 10, 30 and 50 minutes: the median is 30.
      expect(d.medians.find((m: { gamesserver_id: number }) => m.gamesserver_id === server)).toMatchObject({ minutes: 30, processed: 3 });
      expect(d.median_all_minutes).toBe(30);
      expect(d.processed_24h).toBe(3);
    });
  });
});
