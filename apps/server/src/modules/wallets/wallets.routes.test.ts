import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';

type Player = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)('wallets on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  const call = (method: 'GET' | 'POST', url: string, who?: Player, payload?: object) =>
    t.app.inject({ method, url, headers: { ...(who?.auth ?? {}) }, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    t = await createTestApp(kind);
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(() => t.close());

  describe('wallets and nick', () => {
    it('creates the wallet on the first nick and lists it with both balances', async () => {
      const p = await createUser(t.db.kysely);
      expect((await call('GET', '/api/wallets', p)).json()).toEqual([]);
      const saved = await call('POST', '/api/save_nick/', p, { gamesserver_id: serverId, nick: 'Тёмный1' });
      expect(saved.statusCode).toBe(200);
      expect(saved.json()).toEqual({ success: 'Тёмный1' });
      const list = (await call('GET', '/api/wallets', p)).json();
      expect(list).toEqual([expect.objectContaining({ gamesserver_id: serverId, nick: 'Тёмный1', balance: 0, balance_second: 0, new_message: false })]);
      expect(typeof list[0].gamesserver).toBe('string');
    });

    it('answers many callers at once each with their own wallets and balances (one statement for them all)', async () => {
      const players = await Promise.all(Array.from({ length: 12 }, () => createUser(t.db.kysely)));
      await Promise.all(
        players.map(async (p, i) => {
          if (i % 3 === 0) return; // some have no wallet at all
          const w = await createWallet(t.db.kysely, p.id, serverId, `Hero${i}`);
          await fund(t.db.kysely, w, BigInt(1000 + i));
        }),
      );
      const answers = await Promise.all([...players, ...players].map((p) => call('GET', '/api/wallets', p)));
      answers.forEach((res, n) => {
        const i = n % players.length;
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual(
          i % 3 === 0
            ? []
            : [{ id: expect.any(Number), gamesserver_id: serverId, gamesserver: expect.any(String), nick: `Hero${i}`, balance: 1000 + i, balance_second: 0, new_message: false }],
        );
      });
    });

    it('shows a balance change to the very next read', async () => {
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId, 'Fresh');
      for (let i = 1; i <= 5; i++) {
        // Reads in flight while the balance moves: the read made after the movement sees it.
        const during = Array.from({ length: 4 }, () => call('GET', '/api/wallets', p));
        await fund(t.db.kysely, w, 10n);
        expect((await call('GET', '/api/wallets', p)).json()[0].balance).toBe(10 * i);
        await Promise.all(during);
      }
    });

    it('refuses a bad nick and an unknown server in Russian', async () => {
      const p = await createUser(t.db.kysely);
      const bad = await call('POST', '/api/save_nick/', p, { gamesserver_id: serverId, nick: 'a b!' });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors.nick[0]).toMatch(/[а-я]/);
      const unknown = await call('POST', '/api/save_nick/', p, { gamesserver_id: 999_999, nick: 'Hero' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().errors.gamesserver_id).toEqual(['Игровой сервер не найден']);
    });

    it("refuses the cashier's own nick, in any letter case: no deposit «from the cashier to the cashier»", async () => {
      const p = await createUser(t.db.kysely);
      const { cashier_nick } = await t.db.kysely.selectFrom('gamesservers').select('cashier_nick').where('id', '=', serverId).executeTakeFirstOrThrow();
      for (const nick of [cashier_nick, cashier_nick.toUpperCase()]) {
        const refused = await call('POST', '/api/save_nick/', p, { gamesserver_id: serverId, nick });
        expect(refused.statusCode).toBe(422);
        expect(refused.json().errors.nick).toEqual(['Это ник кассира сервиса: укажите ник своего персонажа']);
      }
      const wallet = await t.db.kysely.selectFrom('wallets').select('nick').where('user_id', '=', p.id).where('gamesserver_id', '=', serverId).executeTakeFirst();
      expect(wallet?.nick ?? null).toBeNull();
    });
  });
});
