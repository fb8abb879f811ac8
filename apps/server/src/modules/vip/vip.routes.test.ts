import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;
const price = (nominal: number, bp: number) => nominal + Number(feeOf(BigInt(nominal), bp));

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('VIP on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
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
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, sellerWallet, 1000n * BigInt(KK));
  });
  afterAll(() => t.close());

  describe('VIP', () => {
    it('takes coins, extends VIP from its current end, and lowers the fee at once', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 1000n, 2);
      await fund(t.db.kysely, w, 100n * BigInt(KK), 1);
      const poor = await call('POST', '/api/vip/', u, { months: 4 });
      expect(poor.statusCode).toBe(409);
      expect(poor.json().low_cap).toBe(true);
      const res = await call('POST', '/api/vip/', u, { months: 2 });
      expect(res.statusCode).toBe(200);
      const user = res.json().success;
      expect(user.vip).toBe(true);
      const days = (new Date(user.vip_until).getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(59.9);
      expect(days).toBeLessThan(60.1);
      expect(await balanceOf(u.id, 2)).toBe(1000 - 600);
      const more = (await call('POST', '/api/vip/', u, { months: 1, gamesserver_id: serverId })).json().success;
      expect(new Date(more.vip_until).getTime() - new Date(user.vip_until).getTime()).toBe(30 * 86_400_000);
      expect((await issue(u, w.id, 10 * KK)).json().summa).toBe(price(10 * KK, 100));
      expect((await call('POST', '/api/vip/', u, { months: 0 })).statusCode).toBe(422);
      await expectAudit();
    });

    it('says not enough coins under months, the field the request has, whether the server is chosen or not', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 100n, 2);
      const expected = { low_cap: true, errors: { months: ['Недостаточно монет Эйнхасад для покупки VIP'] } };
      const chosen = await call('POST', '/api/vip/', u, { months: 1, gamesserver_id: serverId });
      expect(chosen.statusCode).toBe(409);
      expect(chosen.json()).toMatchObject(expected);
      expect(chosen.json().errors).not.toHaveProperty('amount');
      const any = await call('POST', '/api/vip/', u, { months: 1 });
      expect(any.statusCode).toBe(409);
      expect(any.json()).toMatchObject(expected);
      expect(await balanceOf(u.id, 2)).toBe(100);
      await expectAudit();
    });
  });
});
