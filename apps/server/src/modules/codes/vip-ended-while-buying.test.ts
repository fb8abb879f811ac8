import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KK } from '../../../test/admin-outsiders';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

/**
 * A purchase's fee came from the user read as the call arrived: an operator who ended a player's VIP while the
 * purchase waited for the player's row saw the code still sold at the VIP fee, and the price the player had
 * confirmed (the VIP one) passed the check meant to refuse it (stress review round 9). The fee is now read from the
 * row the purchase holds. PostgreSQL: PGlite runs one transaction at a time.
 */
describe('a code bought while an operator ends the buyer’s VIP', () => {
  let t: TestApp;
  let serverId: number;
  let operator: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await createTestApp('postgres');
    serverId = await firstServerId(t.db.kysely);
    operator = await createUser(t.db.kysely, { admin: true });
    await t.db.kysely.updateTable('gamesservers').set({ code_fee_bp: 500, vip_code_fee_bp: 100 }).where('id', '=', serverId).execute();
  });
  afterAll(() => t.close());

  async function vipPlayer() {
    const u = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ vip_until: new Date(Date.now() + 10 * 86_400_000) }).where('id', '=', u.id).execute();
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    return { u, w };
  }

  /** The VIP's end waits at the player's row, held here; then the purchase waits behind it; then both go on. */
  async function buyWhileVipEnds(userId: number, buy: () => Promise<{ statusCode: number; json(): unknown }>) {
    const row = await holdLocks(t.db.kysely, (trx) => sql`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`.execute(trx));
    const ended = t.app.inject({ method: 'POST', url: `/api/admin/users/${userId}/vip`, headers: operator.auth, payload: { vip_until: null } });
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the VIP change to wait for the player');
    const bought = buy();
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the purchase to wait for the player');
    await row.release();
    expect((await ended).statusCode).toBe(200);
    return bought;
  }

  it('without a confirmed price: the standard fee', async () => {
    const p = await vipPlayer();
    const res = await buyWhileVipEnds(p.u.id, () =>
      t.app.inject({ method: 'POST', url: '/api/show_code/', headers: p.u.auth, payload: { gamesserver_id: serverId, nominal: KK, wallet_id: p.w.id } }),
    );
    expect(res.statusCode).toBe(200);
    const code = await t.db.kysely.selectFrom('codes').select(['nominal', 'fee']).where('user_id', '=', p.u.id).executeTakeFirstOrThrow();
    expect(code.fee).toBe(BigInt(KK) / 20n);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('with the VIP price confirmed: 409, nothing bought', async () => {
    const p = await vipPlayer();
    const vipPrice = KK + KK / 100;
    const res = await buyWhileVipEnds(p.u.id, () =>
      t.app.inject({ method: 'POST', url: '/api/show_code/', headers: p.u.auth, payload: { gamesserver_id: serverId, nominal: KK, wallet_id: p.w.id, price: vipPrice } }),
    );
    expect(res.statusCode).toBe(409);
    expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', p.u.id).execute()).toEqual([]);
  });

  it('a batch: the standard fee on every code', async () => {
    const p = await vipPlayer();
    const res = await buyWhileVipEnds(p.u.id, () =>
      t.app.inject({ method: 'POST', url: '/api/pricekods/', headers: p.u.auth, payload: { gamesserver_id: serverId, nominal: KK, count: 2 } }),
    );
    expect(res.statusCode).toBe(200);
    const fees = await t.db.kysely.selectFrom('codes').select('fee').where('user_id', '=', p.u.id).execute();
    expect(fees.map((c) => c.fee)).toEqual([BigInt(KK) / 20n, BigInt(KK) / 20n]);
  });
});
