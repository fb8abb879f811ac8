import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, firstServerId } from '../../../test/factories';
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

    it('refuses a bad nick and an unknown server in Russian', async () => {
      const p = await createUser(t.db.kysely);
      const bad = await call('POST', '/api/save_nick/', p, { gamesserver_id: serverId, nick: 'a b!' });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors.nick[0]).toMatch(/[а-я]/);
      const unknown = await call('POST', '/api/save_nick/', p, { gamesserver_id: 999_999, nick: 'Hero' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().errors.gamesserver_id).toEqual(['Игровой сервер не найден']);
    });
  });
});
