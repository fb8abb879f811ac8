import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { hashToken, newToken } from '../../lib/tokens';
import { sessionsRepository } from '../sessions/sessions.repository';
import { auditLedger } from '../ledger/ledger.service';
import { totpCode } from './totp';

const codeAt = (offsetS = 0) => totpCode(TEST_TOTP_SECRET, new Date(Date.now() + offsetS * 1000));
const WITHDRAWALS = ['/api/down_balance_user/', '/api/down_balance_user_second_currency/'];

describe.each(DB_KINDS)('step-up and operators on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  /** A player with TOTP on (the factories' secret) and a funded wallet in both currencies. */
  async function totpPlayer() {
    const u = await createUser(t.db.kysely, { totp: true });
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK), 1);
    await fund(t.db.kysely, w, 10n * BigInt(KK), 2);
    return { u, w };
  }
  const moneyOf = async (userId: number) => ({
    wallets: await t.db.kysely.selectFrom('wallets').select(['balance', 'balance_second']).where('user_id', '=', userId).execute(),
    requests: await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', userId).execute(),
    codes: await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', userId).execute(),
  });

  it('changing a nick already set asks for the code (payouts go to that character); setting the first one does not', async () => {
    const u = await createUser(t.db.kysely, { totp: true });
    const nickOf = async () =>
      (await t.db.kysely.selectFrom('wallets').select('nick').where('user_id', '=', u.id).executeTakeFirst())?.nick ?? null;
    const save = (nick: string, extra: Record<string, string> = {}) => call('POST', '/api/save_nick/', { ...u.auth, ...extra }, { gamesserver_id: serverId, nick });
    expect((await save('Owner')).statusCode).toBe(200);
    expect((await save('Owner')).statusCode).toBe(200);
    // A stolen session cannot point the owner's next withdrawal at another character.
    for (const extra of [{}, { 'x-two-factor-code': 'abcdef' }] as Record<string, string>[]) {
      const res = await save('ThiefChar', extra);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ two_factor_required: true });
    }
    expect(await nickOf()).toBe('Owner');
    expect((await save('NewMain', { 'x-two-factor-code': codeAt(0) })).statusCode).toBe(200);
    expect(await nickOf()).toBe('NewMain');
    // Without TOTP a player changes it freely, as before.
    const plain = await createUser(t.db.kysely);
    for (const nick of ['First', 'Second']) {
      expect((await call('POST', '/api/save_nick/', plain.auth, { gamesserver_id: serverId, nick })).statusCode).toBe(200);
    }
  });

  it('withdrawals and show_code without a code, with letters or a wrong code answer 403 two_factor_required and move nothing', async () => {
    const { u, w } = await totpPlayer();
    const before = await moneyOf(u.id);
    const bodies: [string, object][] = [
      ...WITHDRAWALS.map((url): [string, object] => [url, { gamesserver_id: serverId, amount: KK }]),
      ['/api/show_code/', { gamesserver_id: serverId, nominal: KK, wallet_id: w.id }],
    ];
    for (const [url, body] of bodies) {
      for (const extra of [{} as Record<string, string>, { 'x-two-factor-code': 'abcdef' }, { 'x-two-factor-code': codeAt(120) }, { 'x-two-factor-code': '' }]) {
        const res = await call('POST', url, { ...u.auth, ...extra, 'idempotency-key': `k-${Math.random()}` }, body);
        expect(res.statusCode, `${url} ${JSON.stringify(extra)}`).toBe(403);
        expect(res.json()).toEqual({ message: expect.stringMatching(/код/), two_factor_required: true });
      }
    }
    expect(await moneyOf(u.id)).toEqual(before);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('a good code lets one withdrawal through; the same code a second time is refused', async () => {
    const { u, w } = await totpPlayer();
    const code = codeAt(30);
    const first = await call('POST', WITHDRAWALS[0]!, { ...u.auth, 'x-two-factor-code': code }, { gamesserver_id: serverId, amount: KK });
    expect(first.statusCode).toBe(200);
    const again = await call('POST', WITHDRAWALS[0]!, { ...u.auth, 'x-two-factor-code': code }, { gamesserver_id: serverId, amount: KK });
    expect(again.statusCode).toBe(403);
    const wallet = await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(wallet.balance).toBe(9n * BigInt(KK));
    // A recovery-less user can still reveal a code with the next one (the factories' admin-less player).
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', u.id).execute();
    const shown = await call('POST', '/api/show_code/', { ...u.auth, 'x-two-factor-code': codeAt(0) }, { gamesserver_id: serverId, nominal: KK, wallet_id: w.id });
    expect(shown.statusCode).toBe(200);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('parallel withdrawals with one code: at most one moves money, the ledger stays balanced', async () => {
    const { u, w } = await totpPlayer();
    const code = codeAt(30);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', WITHDRAWALS[0]!, { ...u.auth, 'x-two-factor-code': code }, { gamesserver_id: serverId, amount: KK })),
    );
    const ok = answers.filter((r) => r.statusCode === 200).length;
    expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 403)).toBe(true);
    const wallet = await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(ok).toBeLessThanOrEqual(1);
    expect(wallet.balance).toBe(10n * BigInt(KK) - BigInt(ok) * BigInt(KK));
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('players without TOTP withdraw as before, and a stray header changes nothing', async () => {
    const u = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 5n * BigInt(KK));
    expect((await call('POST', WITHDRAWALS[0]!, u.auth, { gamesserver_id: serverId, amount: KK })).statusCode).toBe(200);
    expect((await call('POST', WITHDRAWALS[0]!, { ...u.auth, 'x-two-factor-code': '000000' }, { gamesserver_id: serverId, amount: KK })).statusCode).toBe(200);
    // Deposits never ask.
    const t2 = await totpPlayer();
    expect((await call('POST', '/api/up_balance_user/', t2.u.auth, { gamesserver_id: serverId, amount: KK })).statusCode).toBe(200);
  });

  it('an admin without TOTP is refused every admin call with two_factor_setup_required, and turning it on lets them in', async () => {
    const admin = await createUser(t.db.kysely, { admin: true, totp: false });
    for (const url of ['/api/admin/requests', '/api/admin/users', '/api/admin/ledger/audit', '/api/admin/audit_log', '/api/admin/gamesservers', '/api/admin/dashboard']) {
      const res = await call('GET', url, admin.auth);
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toEqual({ message: expect.stringMatching(/админке/), two_factor_setup_required: true });
    }
    // Their own calls work: they can set TOTP up.
    const setup = await call('POST', '/api/2fa/setup', admin.auth);
    expect(setup.statusCode).toBe(200);
    const enable = await call('POST', '/api/2fa/enable', admin.auth, { code: totpCode(setup.json().secret, new Date()) });
    expect(enable.statusCode).toBe(200);
    expect((await call('GET', '/api/admin/requests', admin.auth)).statusCode).toBe(200);
  });

  it("an operator's Telegram session (signed in without the code) is asked for it once before any admin call or the operators' channel", async () => {
    const admin = await createUser(t.db.kysely, { admin: true });
    // Someone holding the operator's Telegram account signs in there: Telegram sign-ins are not asked for the code.
    const telegram = newToken();
    const row = await t.db.kysely
      .insertInto('tokens')
      .values({ user_id: admin.id, kind: 'access', token_hash: hashToken(telegram), method: 'telegram' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const viaTelegram = { authorization: `Bearer ${telegram}` };
    for (const url of ['/api/admin/requests', '/api/admin/users', '/api/admin/dashboard']) {
      const res = await call('GET', url, viaTelegram);
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toEqual({ message: expect.stringMatching(/подтвердите вход в админку/), two_factor_required: true });
    }
    const player = await createUser(t.db.kysely);
    const block = await call('POST', `/api/admin/users/${player.id}/block`, viaTelegram, { reason: 'захват' });
    expect(block.statusCode).toBe(403);
    expect((await t.db.kysely.selectFrom('users').select('blocked_at').where('id', '=', player.id).executeTakeFirstOrThrow()).blocked_at).toBeNull();
    expect(await sessionsRepository.mayHearOperators(t.db.kysely, Number(row.id), true)).toBe(false);
    const wrong = await call('GET', '/api/admin/dashboard', { ...viaTelegram, 'x-two-factor-code': '000000' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().two_factor_required).toBe(true);

    // The operator gives the code once: that session works from then on, without it.
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', admin.id).execute();
    expect((await call('GET', '/api/admin/dashboard', { ...viaTelegram, 'x-two-factor-code': codeAt() })).statusCode).toBe(200);
    expect((await call('GET', '/api/admin/requests', viaTelegram)).statusCode).toBe(200);
    expect(await sessionsRepository.mayHearOperators(t.db.kysely, Number(row.id), true)).toBe(true);
    // A session signed in with the code was never asked.
    expect((await call('GET', '/api/admin/requests', admin.auth)).statusCode).toBe(200);

    // A call that needs a step-up of its own, from a Telegram session's first admin call: the one code serves both.
    const again = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: admin.id, kind: 'access', token_hash: hashToken(again), method: 'telegram_app' }).execute();
    const owner = await createUser(t.db.kysely, { totp: true });
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', admin.id).execute();
    const off = await call('POST', `/api/admin/users/${owner.id}/two_factor_off`, { authorization: `Bearer ${again}`, 'x-two-factor-code': codeAt() }, { reason: 'Потерял телефон' });
    expect(off.statusCode).toBe(200);
    expect(off.json().success.two_factor).toBe(false);
  });

  it('an account without a password turns TOTP on only from a fresh sign-in: a session stolen earlier cannot', async () => {
    const u = await createUser(t.db.kysely, { totp: false }); // Telegram or Discord only: no password
    const setup = await call('POST', '/api/2fa/setup', u.auth);
    expect(setup.statusCode).toBe(200);
    const code = totpCode(setup.json().secret, new Date());
    await t.db.kysely.updateTable('tokens').set({ created_at: new Date(Date.now() - 60 * 60_000) }).where('user_id', '=', u.id).execute();
    const stale = await call('POST', '/api/2fa/enable', u.auth, { code });
    expect(stale.statusCode).toBe(403);
    expect(stale.json().message).toMatch(/войдите снова/);
    expect((await call('GET', '/api/user', u.auth)).json().two_factor).toBe(false);
    // Signed in again a moment ago: it goes through.
    await t.db.kysely.updateTable('tokens').set({ created_at: new Date() }).where('user_id', '=', u.id).execute();
    expect((await call('POST', '/api/2fa/enable', u.auth, { code })).statusCode).toBe(200);
  });

  it('ADMIN_REQUIRE_2FA=false lets an admin without TOTP in', async () => {
    const open = await createTestApp(kind, { env: { ADMIN_REQUIRE_2FA: 'false' } });
    try {
      const admin = await createUser(open.db.kysely, { admin: true, totp: false });
      expect((await open.app.inject({ method: 'GET', url: '/api/admin/requests', headers: admin.auth })).statusCode).toBe(200);
      // But it cannot turn a player's second factor off: that takes the operator's own code.
      const player = await createUser(open.db.kysely, { totp: true });
      const off = await open.app.inject({ method: 'POST', url: `/api/admin/users/${player.id}/two_factor_off`, headers: admin.auth, payload: { reason: 'украденный сеанс оператора' } });
      expect(off.statusCode).toBe(403);
      expect(off.json().two_factor_setup_required).toBe(true);
      expect((await open.db.kysely.selectFrom('users').select('totp_secret').where('id', '=', player.id).executeTakeFirstOrThrow()).totp_secret).not.toBeNull();
    } finally {
      await open.close();
    }
  });
});
