import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('gift codes for operators on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
  let buyer: Player;
  let sellerWallet: { id: number; gamesserver_id: number };
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Player | null, payload?: unknown, ip?: string) =>
    t.app.inject({
      method,
      url,
      headers: who ? who.auth : {},
      ...(ip ? { remoteAddress: ip } : {}),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const balanceOf = async (userId: number, currency: 1 | 2 = 1) => {
    const w = await t.db.kysely.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('gamesserver_id', '=', serverId).executeTakeFirst();
    return w ? Number(currency === 1 ? w.balance : w.balance_second) : 0;
  };
  const issue = (who: Player, walletId: number, nominal: number, extra: object = {}) =>
    call('POST', '/api/show_code/', who, { gamesserver_id: serverId, nominal, wallet_id: walletId, ...extra });
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    seller = await createUser(t.db.kysely);
    buyer = await createUser(t.db.kysely);
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, sellerWallet, 1000n * BigInt(KK));
  });
  afterAll(() => t.close());

  describe('admin', () => {
    it.runIf(kind === 'postgres')("an operator's cancel of a player's code, the same operator's VIP change of that player and another operator's completion of the player's withdrawal: all three go through (no deadlock)", async () => {
      // The operator's id is below the player's: a change of the player takes the operator's row first.
      const op = await createUser(t.db.kysely, { admin: true });
      const other = await createUser(t.db.kysely, { admin: true });
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId, 'Owner');
      await fund(t.db.kysely, w, 100n * BigInt(KK));
      const issued = (await issue(p, w.id, 2 * KK)).json();
      const out = await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 10 * KK });
      expect(out.statusCode).toBe(200);
      const requestId = out.json().success.id as number;
      const before = await balanceOf(p.id);
      // The completion takes the other operator's and the player's rows, then waits for the request.
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', requestId).forUpdate().execute());
      const completing = call('POST', `/api/admin/requests/${requestId}/complete`, other, {});
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 1 ? true : undefined), 'the completion to wait for the request');
      // The VIP change holds the operator's row and waits for the player's.
      const vip = call('POST', `/api/admin/users/${p.id}/vip`, op, { vip_until: new Date(Date.now() + 10 * 86_400_000).toISOString() });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), "the VIP change to wait for the player's row");
      // The cancel waits for the operator's row: before the fix, after it had taken the player's wallet.
      const cancel = call('POST', `/api/admin/codes/${issued.code_id}/cancel`, op, { reason: 'по просьбе' });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 3 ? true : undefined), "the cancel to wait for the operator's row");
      await hold.release();
      const [c, v, x] = await Promise.all([completing, vip, cancel]);
      expect([c.statusCode, v.statusCode, x.statusCode]).toEqual([200, 200, 200]);
      expect(await balanceOf(p.id)).toBe(before + issued.summa);
      await expectAudit();
    });

    it.runIf(kind === 'postgres')('an operator blocked while their cancel waits on their own row is refused: the code stays active, nothing is refunded or audited; one already under way lands first', async () => {
      const rogue = await createUser(t.db.kysely, { admin: true });
      const other = await createUser(t.db.kysely, { admin: true });
      const issued = (await issue(seller, sellerWallet.id, 2 * KK)).json();
      const before = await balanceOf(seller.id);
      // The rogue holds a claim: the block, having taken the rogue's row, waits on that request to release it…
      const p = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, p.id, serverId, 'Depositor');
      const deposit = (await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: KK })).json().success.id as number;
      expect((await call('POST', `/api/admin/requests/${deposit}/claim`, rogue, {})).statusCode).toBe(200);
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', deposit).forUpdate().execute());
      const block = call('POST', `/api/admin/users/${rogue.id}/block`, other, { reason: 'злоупотребление' });
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%balance_requests%')) === 1 ? true : undefined), 'the block waiting inside its transaction');
      // …while the rogue's cancel waits on the rogue's own row, before it touches the code or the wallet.
      const cancel = call('POST', `/api/admin/codes/${issued.code_id}/cancel`, rogue, { reason: 'по просьбе' });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), "the cancel waiting on its operator's row");
      await hold.release();
      expect((await block).statusCode).toBe(200);
      expect((await cancel).statusCode).toBe(403);
      expect((await t.db.kysely.selectFrom('codes').select('status').where('id', '=', issued.code_id).executeTakeFirstOrThrow()).status).toBe('active');
      expect(await balanceOf(seller.id)).toBe(before);
      expect(await t.db.kysely.selectFrom('admin_audit_log').select('id').where('admin_id', '=', rogue.id).where('action', '=', 'code.cancel').execute()).toEqual([]);

      // A cancel already under way (waiting on the code a buyer's activation holds) holds its operator's row: a block
      // then waits for it, and the cancel lands first.
      const second = await createUser(t.db.kysely, { admin: true });
      const next = (await issue(seller, sellerWallet.id, 2 * KK)).json();
      const codeHold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('codes').select('id').where('id', '=', next.code_id).forUpdate().execute());
      const underWay = call('POST', `/api/admin/codes/${next.code_id}/cancel`, second, { reason: 'по просьбе' });
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%codes%')) === 1 ? true : undefined), 'the cancel waiting for the code');
      const late = call('POST', `/api/admin/users/${second.id}/block`, other, { reason: 'злоупотребление' });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), "the block waiting for the cancel's hold on its operator");
      await codeHold.release();
      expect([(await underWay).statusCode, (await late).statusCode]).toEqual([200, 200]);
      // Issued and refunded: the wallet is where it was.
      expect(await balanceOf(seller.id)).toBe(before);
      expect((await t.db.kysely.selectFrom('codes').select('status').where('id', '=', next.code_id).executeTakeFirstOrThrow()).status).toBe('cancelled');
      await expectAudit();
    });

    it('lists incidents, looks a code up by sert or id with its story, and cancels it with a refund', async () => {
      const admin = await createUser(t.db.kysely, { admin: true });
      const issued = (await issue(seller, sellerWallet.id, 4 * KK)).json();
      const before = await balanceOf(seller.id);
      const bySert = await call('GET', `/api/admin/codes?sert=${issued.sert}`, admin);
      expect(bySert.statusCode).toBe(200);
      expect(bySert.json().code).toMatchObject({ id: issued.code_id, sert: issued.sert, sert_masked: false, status: 'active', issuer: { id: seller.id } });
      expect(bySert.json().ledger.map((e: { transaction_kind: string }) => e.transaction_kind)).toContain('code_issue');
      const byId = (await call('GET', `/api/admin/codes?id=${issued.code_id}`, admin)).json();
      expect(byId.code.sert).not.toBe(issued.sert);
      expect(byId.code.sert_masked).toBe(true);
      expect((await call('GET', '/api/admin/codes', admin)).statusCode).toBe(422);
      expect((await call('GET', '/api/admin/codes?id=999999', admin)).statusCode).toBe(404);

      const cancelled = await call('POST', `/api/admin/codes/${issued.code_id}/cancel`, admin, { reason: 'жалоба покупателя' });
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ summa: issued.summa, success: { status: 'cancelled', cancelled_by: admin.id } });
      expect(await balanceOf(seller.id)).toBe(before + issued.summa);
      expect((await call('POST', `/api/admin/codes/${issued.code_id}/cancel`, admin, { reason: 'ещё раз' })).statusCode).toBe(409);
      const audit = await t.db.kysely.selectFrom('admin_audit_log').selectAll().where('entity_type', '=', 'code').execute();
      expect(audit.map((a) => a.entity_id)).toContain(String(issued.code_id));

      // The buyer is told who cancelled it: an operator's cancel is not blamed on the seller.
      const tried = await call('POST', '/api/activation_code/', buyer, { sert: issued.sert });
      expect(tried.statusCode).toBe(409);
      expect(tried.json()).toMatchObject({ message: 'Код отменён администрацией сервиса', status: 'cancelled' });
      const list = (await call('GET', '/api/admin/code_incidents?state=open', admin)).json();
      expect(list.total).toBeGreaterThan(0);
      expect(list.data[0]).toMatchObject({ code_id: issued.code_id, code_status: 'cancelled', attempted_by: { id: buyer.id } });
      expect(list.data[0].sert).toContain('****');
      const story = (await call('GET', `/api/admin/codes?id=${issued.code_id}`, admin)).json();
      expect(story.attempts.map((a: { result: string }) => a.result)).toEqual(['cancelled']);
      expect(story.incidents).toHaveLength(1);
      await expectAudit();
    });
  });
});
