import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';

const KK = 1_000_000;
const price = (nominal: number, bp: number) => nominal + Number(feeOf(BigInt(nominal), bp));

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('Telegram balance threshold on %s', (kind) => {
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
  const issue = (who: Player, walletId: number, nominal: number, extra: object = {}) =>
    call('POST', '/api/show_code/', who, { gamesserver_id: serverId, nominal, wallet_id: walletId, ...extra });

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
    seller = await createUser(t.db.kysely);
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId, 'Seller');
    await fund(t.db.kysely, sellerWallet, 1000n * BigInt(KK));
  });
  afterAll(() => t.close());

  describe('Telegram limit', () => {
    it('sets and clears the limit shown in price data', async () => {
      const set = await call('POST', '/api/add_limit_otvetka/', seller, { gamesserver_id: serverId, telegram_price: 50 * KK });
      expect(set.json()).toEqual({ success: 50 * KK });
      expect((await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller)).json().telegram_price).toBe(50 * KK);
      expect((await call('POST', '/api/add_limit_otvetka/', seller, { gamesserver_id: serverId, telegram_price: 0 })).statusCode).toBe(422);
      expect((await call('POST', '/api/del_limit_otvetka/', seller, { gamesserver_id: serverId })).json()).toEqual({ success: null });
      expect((await call('GET', `/api/auth_varianty_adeny_za_kod/${serverId}`, seller)).json().telegram_price).toBeNull();
      // Clearing again, or where the player has no wallet yet, is fine; a server that does not exist is 404.
      expect((await call('POST', '/api/del_limit_otvetka/', seller, { gamesserver_id: serverId })).json()).toEqual({ success: null });
      const newcomer = await createUser(t.db.kysely);
      expect((await call('POST', '/api/del_limit_otvetka/', newcomer, { gamesserver_id: serverId })).json()).toEqual({ success: null });
      const unknown = await call('POST', '/api/del_limit_otvetka/', seller, { gamesserver_id: 999_999 });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
    });

    it('records a notice once per crossing even without a linked chat', async () => {
      const u = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, u.id, serverId);
      await fund(t.db.kysely, w, 10n * BigInt(KK));
      await call('POST', '/api/add_limit_otvetka/', u, { gamesserver_id: serverId, telegram_price: 5 * KK });
      await issue(u, w.id, 2 * KK); // 10 → 7.94: above
      await issue(u, w.id, 2 * KK); // → 5.88: above
      await issue(u, w.id, KK); // → 4.85: crosses
      await issue(u, w.id, KK); // → 3.82: already below
      const notices = await t.db.kysely.selectFrom('telegram_notices').selectAll().where('user_id', '=', u.id).execute();
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ status: 'no_chat', threshold: 5n * BigInt(KK), balance: BigInt(10 * KK - 2 * price(2 * KK, 300) - 2 * price(KK, 300)) + BigInt(price(KK, 300)) });
      expect((await call('GET', '/api/telegram_link', u)).json()).toEqual({ url: null, linked: false });
    });
  });
});
