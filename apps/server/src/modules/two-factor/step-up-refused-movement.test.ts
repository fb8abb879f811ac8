import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';
import { totpCode } from './totp';

/**
 * A withdrawal, a code or a batch of codes with a second-factor code that the call itself refuses (more than the
 * balance, outside the server's limits) leaves the code unspent: the player corrects the amount and sends the same
 * code, instead of being told «Неверный код» and waiting for the next one. A code still works once only.
 */
describe.each(DB_KINDS)('a refused movement keeps its second-factor code, on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  const withdraw = (auth: Record<string, string>, code: string, amount: number) =>
    t.app.inject({ method: 'POST', url: '/api/down_balance_user/', headers: { ...auth, 'x-two-factor-code': code }, payload: { gamesserver_id: serverId, amount } });

  async function player() {
    const u = await createUser(t.db.kysely, { totp: true });
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    return { u, w, code: totpCode(TEST_TOTP_SECRET, new Date()) };
  }
  const balance = async (walletId: number) =>
    (await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance;

  it('more than the balance, then the corrected amount with the same code: paid once, the code then spent', async () => {
    const { u, w, code } = await player();
    const tooMuch = await withdraw(u.auth, code, 20 * KK);
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toMatchObject({ errors: { amount: ['Недостаточно средств на балансе'] } });

    const corrected = await withdraw(u.auth, code, 4 * KK);
    expect(corrected.statusCode).toBe(200);
    expect(await balance(w.id)).toBe(6n * BigInt(KK));

    const again = await withdraw(u.auth, code, KK);
    expect(again.statusCode).toBe(403);
    expect(again.json()).toMatchObject({ two_factor_required: true });
    expect(await balance(w.id)).toBe(6n * BigInt(KK));
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('an amount outside the server\'s limits leaves the code too; a wrong code still counts as one', async () => {
    const { u, w, code } = await player();
    const below = await withdraw(u.auth, code, 1);
    expect(below.statusCode).toBe(422);
    expect(below.json().errors.amount).toHaveLength(1);
    expect((await withdraw(u.auth, code, KK)).statusCode).toBe(200);
    expect(await balance(w.id)).toBe(9n * BigInt(KK));

    const wrong = await withdraw(u.auth, code === '000000' ? '111111' : '000000', KK);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().message).toMatch(/[Нн]еверн/);
    expect(await balance(w.id)).toBe(9n * BigInt(KK));
  });

  it('a code or a batch dearer than the balance, then a cheaper one with the same code: issued once, the code then spent', async () => {
    const { u, w, code } = await player();
    const post = (url: string, payload: object, key = `k-${Math.random()}`) =>
      t.app.inject({ method: 'POST', url, headers: { ...u.auth, 'x-two-factor-code': code, 'idempotency-key': key }, payload });
    const dear = await post('/api/show_code/', { gamesserver_id: serverId, nominal: 20 * KK, wallet_id: w.id });
    expect(dear.statusCode).toBe(409);
    const batch = await post('/api/pricekods/', { gamesserver_id: serverId, nominal: KK, count: 50 });
    expect(batch.statusCode).toBe(409);
    const issued = await post('/api/show_code/', { gamesserver_id: serverId, nominal: KK, wallet_id: w.id });
    expect(issued.statusCode).toBe(200);
    expect(issued.json()).toMatchObject({ success: true, sert: expect.stringMatching(/^ADN-/) });

    const spent = await post('/api/pricekods/', { gamesserver_id: serverId, nominal: KK, count: 1 });
    expect(spent.statusCode).toBe(403);
    const codes = await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', u.id).execute();
    expect(codes).toHaveLength(1);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('one code sent with several withdrawals at once pays at most one of them; the money adds up', async () => {
    const { u, w, code } = await player();
    const answers = await Promise.all(Array.from({ length: 6 }, () => withdraw(u.auth, code, KK)));
    const paid = answers.filter((a) => a.statusCode === 200).length;
    expect(paid).toBeLessThanOrEqual(1);
    for (const a of answers) expect([200, 403]).toContain(a.statusCode);
    const held = await t.db.kysely.selectFrom('balance_requests').select('amount').where('user_id', '=', u.id).where('status', '=', 'pending').execute();
    expect(held).toHaveLength(paid);
    expect(await balance(w.id)).toBe(10n * BigInt(KK) - BigInt(paid * KK));
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });
});
