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
    it.runIf(kind === 'postgres')('an operator blocked while their cancel waits on the code is refused: the code stays active, nothing is refunded or audited', async () => {
      const rogue = await createUser(t.db.kysely, { admin: true });
      const other = await createUser(t.db.kysely, { admin: true });
      const issued = (await issue(seller, sellerWallet.id, 2 * KK)).json();
      const before = await balanceOf(seller.id);
      // The buyer's activation holds the code's row while the rogue's cancel comes in behind it…
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('codes').select('id').where('id', '=', issued.code_id).forUpdate().execute());
      const cancel = call('POST', `/api/admin/codes/${issued.code_id}/cancel`, rogue, { reason: 'по просьбе' });
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%codes%')) === 1 ? true : undefined), 'the cancel waiting for the code');
      // …and another operator blocks the rogue meanwhile.
      expect((await call('POST', `/api/admin/users/${rogue.id}/block`, other, { reason: 'злоупотребление' })).statusCode).toBe(200);
      await hold.release();
      expect((await cancel).statusCode).toBe(403);
      expect((await t.db.kysely.selectFrom('codes').select('status').where('id', '=', issued.code_id).executeTakeFirstOrThrow()).status).toBe('active');
      expect(await balanceOf(seller.id)).toBe(before);
      expect(await t.db.kysely.selectFrom('admin_audit_log').select('id').where('admin_id', '=', rogue.id).execute()).toEqual([]);
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
