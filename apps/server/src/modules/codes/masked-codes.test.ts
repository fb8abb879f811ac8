import type { AuthPriceData } from '@adena/contract';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { subscribedSocket } from '../../../test/sockets';
import { hashToken, newToken } from '../../lib/tokens';
import { totpCode } from '../two-factor/totp';

const MASKED = /^ADN-[0-9A-Z]{4}-\*{4}-\*{4}-[0-9A-Z]{4}$/;
const opened: Socket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.disconnect();
});

/**
 * A gift code is bearer value: whoever reads its text can activate it on another account. With TOTP
 * on, a stolen session must not read the owner's open codes from the wallet page's price data or
 * from the realtime `sert` event, while the owner reads them after a step-up (README "Second factors").
 */
describe.each(DB_KINDS)('open codes of a TOTP player on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  const priceData = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: `/api/auth_varianty_adeny_za_kod/${serverId}`, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /** A good code the server has not seen yet: the user's last accepted step is forgotten first. */
  async function freshCode(userId: number) {
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', userId).execute();
    return totpCode(TEST_TOTP_SECRET, new Date());
  }
  /** `/show_code/` of one code of 1кк, with a fresh code from the player's authenticator. */
  const issueWithCode = async (u: { id: number; auth: Record<string, string> }, walletId: number) =>
    t.app.inject({ method: 'POST', url: '/api/show_code/', headers: { ...u.auth, 'x-two-factor-code': await freshCode(u.id) }, payload: { gamesserver_id: serverId, wallet_id: walletId, nominal: KK } });
  const forgetStepUps = (userId: number) => t.db.kysely.updateTable('tokens').set({ stepped_up_at: null }).where('user_id', '=', userId).execute();
  const openSerts = async (userId: number) =>
    (await t.db.kysely.selectFrom('codes').select('sert').where('user_id', '=', userId).where('status', '=', 'active').orderBy('id').execute()).map((c) => c.sert);
  const shown = (d: AuthPriceData) => [...d.kods, ...d.svoy_variant_kods];

  /** A player with TOTP on and three open codes (one single, two of an own variant), issued with codes. */
  async function owner() {
    const u = await createUser(t.db.kysely, { totp: true });
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 100n * BigInt(KK));
    expect((await issueWithCode(u, w.id)).statusCode).toBe(200);
    const variant = await t.app.inject({
      method: 'POST',
      url: '/api/pricekods/',
      headers: { ...u.auth, 'x-two-factor-code': await freshCode(u.id) },
      payload: { gamesserver_id: serverId, nominal: 2 * KK, count: 2 },
    });
    expect(variant.statusCode).toBe(200);
    await forgetStepUps(u.id);
    return { u, serts: await openSerts(u.id) };
  }

  it("a stolen session reads no open code's text; a wrong code is refused; the owner's code shows them to that session for 10 minutes only", async () => {
    const { u, serts } = await owner();
    expect(serts).toHaveLength(3);

    // The thief, with the owner's session and a session of their own: masked codes, nothing whole in the answer.
    const thief = newToken();
    await t.db.kysely.insertInto('tokens').values({ user_id: u.id, kind: 'access', token_hash: hashToken(thief) }).execute();
    for (const token of [u.token, thief]) {
      const res = await priceData(bearer(token));
      expect(res.statusCode).toBe(200);
      for (const sert of serts) expect(res.body).not.toContain(sert);
      const codes = shown(res.json());
      expect(codes).toHaveLength(3);
      for (const c of codes) {
        expect(c.sert).toMatch(MASKED);
        expect(c.sert_masked).toBe(true);
      }
      // The rest of the page is there: the balance left after the three codes' prices.
      expect(res.json().wallet.balance).toBe(100 * KK - codes.reduce((sum, c) => sum + c.price, 0));
    }
    for (const wrong of ['000000', 'abcde-fghij', '']) {
      const res = await priceData({ ...bearer(thief), 'x-two-factor-code': wrong });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: expect.stringMatching(/код/i), two_factor_required: true });
      for (const sert of serts) expect(res.body).not.toContain(sert);
    }

    // The owner gives a code: whole texts, and again without one while the step-up is fresh.
    const opened = await priceData({ ...u.auth, 'x-two-factor-code': await freshCode(u.id) });
    expect(opened.statusCode).toBe(200);
    expect(shown(opened.json()).map((c) => c.sert).sort()).toEqual([...serts].sort());
    expect(shown(opened.json()).some((c) => 'sert_masked' in c)).toBe(false);
    const again = await priceData(u.auth);
    expect(shown(again.json()).map((c) => c.sert).sort()).toEqual([...serts].sort());
    // Not for the other session, and not for the owner's after 10 minutes.
    expect(shown((await priceData(bearer(thief))).json()).every((c) => MASKED.test(c.sert))).toBe(true);
    await t.db.kysely
      .updateTable('tokens')
      .set({ stepped_up_at: new Date(Date.now() - 11 * 60_000) })
      .where('token_hash', '=', hashToken(u.token))
      .execute();
    expect(shown((await priceData(u.auth)).json()).every((c) => MASKED.test(c.sert))).toBe(true);
  });

  it("the realtime sert event reaches a stolen session's socket masked; the issuing call's answer has the code whole", async () => {
    const u = await createUser(t.db.kysely, { totp: true });
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const realtime = (await t.app.inject({ method: 'POST', url: '/api/ably-token', headers: u.auth, payload: {} })).json() as { token: string; channel: string };
    const port = (t.app.server.address() as { port: number }).port;
    const { socket, messages: heard } = await subscribedSocket(`http://127.0.0.1:${port}`, realtime);
    opened.push(socket);

    const issued = await issueWithCode(u, w.id);
    expect(issued.statusCode).toBe(200);
    const { sert, code_id } = issued.json() as { sert: string; code_id: number };
    expect(sert).toMatch(/^ADN-[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    const event = await waitFor(() => heard.find((m) => m.name === 'sert'), 'the sert event');
    expect(event.data).toEqual({ gamesserver_id: serverId, code_id, nominal: KK, sert: expect.stringMatching(MASKED), sert_masked: true });
    expect(JSON.stringify(heard)).not.toContain(sert);
  });

  it('a player without TOTP sees the open codes whole, as before, with no mask flag', async () => {
    const u = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const issued = await t.app.inject({ method: 'POST', url: '/api/show_code/', headers: u.auth, payload: { gamesserver_id: serverId, wallet_id: w.id, nominal: KK } });
    expect(issued.statusCode).toBe(200);
    const codes = shown((await priceData(u.auth)).json());
    expect(codes.map((c) => c.sert)).toEqual([issued.json().sert]);
    expect('sert_masked' in codes[0]!).toBe(false);
  });
});
