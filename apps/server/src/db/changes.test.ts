import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentRelay } from '../../test/fakes/half-open-relay';
import { createTestDb, type TestDb } from '../../test/harness';
import { postgresChangeFeed } from './changes';

describe('the PostgreSQL change feed', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
  });
  afterAll(() => db?.close());

  it('asks its connection one statement at a time, in the order asked, however many barriers and reads overlap (node-postgres 9 will not queue them)', async () => {
    const feed = postgresChangeFeed(db.url ?? '', 'turn_test');
    const query = pg.Client.prototype.query;
    let running = 0;
    let most = 0;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      running++;
      most = Math.max(most, running);
      const out = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      void out.then(
        () => running--,
        () => running--,
      );
      return out as never;
    });
    try {
      await expect.poll(() => feed.live, { interval: 20 }).toBe(true);
      running = 0;
      most = 0;
      const order: string[] = [];
      const asked = [
        feed.read<{ n: number }>({ sql: 'SELECT 1 AS n, pg_sleep(0.05)', parameters: [] }).then(() => order.push('read 1')),
        feed.sync().then(() => order.push('sync')),
        feed.read<{ n: number }>({ sql: 'SELECT $1::int AS n', parameters: [2] }).then((rows) => order.push(`read ${rows?.[0]?.n}`)),
      ];
      await Promise.all(asked);
      expect(most).toBe(1);
      expect(order).toEqual(['read 1', 'sync', 'read 2']);
    } finally {
      spy.mockRestore();
      await feed.close();
    }
  });

  it('closes within a second or two when the network to its server is silently cut, instead of waiting for a goodbye that never comes', async () => {
    const relay = await silentRelay(new URL(db.url ?? ''));
    const feed = postgresChangeFeed(relay.url, 'cut_test');
    try {
      await expect.poll(() => feed.live, { interval: 20 }).toBe(true);
      relay.cut();
      const closed = await Promise.race([feed.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still waiting'), 10_000))]);
      expect(closed).toBe('closed');
      expect(feed.live).toBe(false);
    } finally {
      relay.close();
    }
  });
});
