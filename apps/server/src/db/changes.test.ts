import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentRelay } from '../../test/fakes/half-open-relay';
import { createTestDb, type TestDb } from '../../test/harness';
import { postgresChangeFeed } from './changes';

describe('the PostgreSQL change feed', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
  });
  afterAll(() => db?.close());

  it('closes within a second or two when the network to its server is silently cut, instead of waiting for a goodbye that never comes', async () => {
    const relay = await silentRelay(new URL(db.url ?? ''));
    const feed = postgresChangeFeed(relay.url, 'cut_test');
    try {
      await expect.poll(() => feed.live, { interval: 20 }).toBe(true);
      relay.cut();
      const closed = await Promise.race([feed.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still waiting'), 3_000))]);
      expect(closed).toBe('closed');
      expect(feed.live).toBe(false);
    } finally {
      relay.close();
    }
  });
});
