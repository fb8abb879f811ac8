import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
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

  // Diff review 2026-11-28: a recovery code's UPDATE locks only its own row, then the session's row is marked; support's
  // TOTP rescue holds the user's row, ends the sessions, then deletes the recovery codes: one side answered 503.
  it.runIf(kind === 'postgres')("a withdrawal paid with a recovery code while support's TOTP rescue runs: no deadlock, nothing moves", async () => {
    const { u, w } = await player();
    const recovery = (code: string) => createHash('sha256').update(`${u.id}:${code}`).digest('hex');
    await t.db.kysely
      .insertInto('recovery_codes')
      .values(['abcdefghij', 'klmnopqrst'].map((c) => ({ user_id: u.id, code_hash: recovery(c) })))
      .execute();
    const operator = await createUser(t.db.kysely, { admin: true });
    // The rescue has ended the sessions and waits at the first recovery code; the withdrawal comes with the second.
    const first = recovery('abcdefghij');
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('recovery_codes').select('user_id').where('code_hash', '=', first).forUpdate().execute());
    const rescue = t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${u.id}/two_factor_off`,
      headers: { ...operator.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) },
      payload: { reason: 'Чужой код, владелец проверен' },
    });
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%recovery_codes%')) === 1 ? true : undefined), 'the rescue to wait at the codes');
    const paid = withdraw(u.auth, 'klmno-pqrst', KK);
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the withdrawal to wait as well');
    await hold.release();
    const [rescued, refused] = await Promise.all([rescue, paid]);
    expect([rescued.statusCode, refused.statusCode]).not.toContain(503);
    expect(rescued.statusCode).toBe(200);
    expect([401, 403]).toContain(refused.statusCode);
    expect(await balance(w.id)).toBe(10n * BigInt(KK));
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  // Diff review 2026-11-28: a retry with the same key and code, sent while its first try still ran, waited for the
  // user's row, found the code spent and answered «Неверный код» (counted) instead of the first try's answer.
  it.runIf(kind === 'postgres')('a keyed withdrawal and a keyed code retried with the same code while the first try runs: the first answer, once', async () => {
    const { u, w, code } = await player();
    const heldWallet = () =>
      holdLocks(t.db.kysely, (trx) => trx.selectFrom('wallets').select('id').where('id', '=', w.id).forUpdate().execute());
    const send = (url: string, key: string, payload: object) =>
      t.app.inject({ method: 'POST', url, headers: { ...u.auth, 'x-two-factor-code': code, 'idempotency-key': key }, payload });
    const calls = [
      ['/api/down_balance_user/', { gamesserver_id: serverId, amount: KK }],
      ['/api/show_code/', { gamesserver_id: serverId, nominal: KK, wallet_id: w.id }],
    ] as const;
    for (const [url, payload] of calls) {
      await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', u.id).execute();
      const key = `k-${Math.random()}`;
      const hold = await heldWallet();
      const first = send(url, key, payload);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the first try to wait at the wallet');
      const retry = send(url, key, payload);
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the retry to wait as well');
      await hold.release();
      const [a, b] = await Promise.all([first, retry]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect(b.json()).toEqual(a.json());
    }
    // One withdrawal held, one code bought: each once.
    expect(await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', u.id).execute()).toHaveLength(1);
    expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', u.id).execute()).toHaveLength(1);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  // Diff review 2026-11-28: the wrong-code try is given back after COMMIT now; its failure turned a withdrawal that had
  // gone through into a 503, and a retry without a key would have moved the money again.
  it('a try that cannot be given back after the withdrawal committed does not turn its answer into an error', async () => {
    const { u, w, code } = await player();
    await sql`CREATE FUNCTION zz_refund_fails() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.hits < OLD.hits THEN RAISE EXCEPTION 'connection lost' USING ERRCODE = '08006'; END IF; RETURN NEW; END $$`.execute(t.db.kysely);
    await sql`CREATE TRIGGER zz_refund_fails BEFORE UPDATE ON rate_limits FOR EACH ROW EXECUTE FUNCTION zz_refund_fails()`.execute(t.db.kysely);
    try {
      const paid = await withdraw(u.auth, code, KK);
      expect(paid.statusCode).toBe(200);
      expect(await balance(w.id)).toBe(9n * BigInt(KK));
    } finally {
      await sql`DROP TRIGGER zz_refund_fails ON rate_limits`.execute(t.db.kysely);
      await sql`DROP FUNCTION zz_refund_fails()`.execute(t.db.kysely);
    }
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
