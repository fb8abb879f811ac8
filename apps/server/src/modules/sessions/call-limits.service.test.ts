import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { createTestDb, DB_KINDS } from '../../../test/harness';
import { createCallLimitStore } from './call-limits.service';
import { rateLimitsRepository } from './rate-limits.repository';

const quiet = { warn() {} };
const settle = (v: number | Promise<number>) => Promise.resolve(v);

describe('the shared call limits while the database is away', () => {
  it('counts locally in each window, and a window that ended takes its unsynced hits with it', async () => {
    const db = await createTestDb('pglite');
    const windowMs = 3_000; // the four calls below take milliseconds; seconds of margin for a stalled machine
    const store = createCallLimitStore(db.kysely, quiet, windowMs);
    await db.close();
    // Four calls in a few milliseconds, well inside one window; each sync fails.
    expect(await settle(store.hit('call:ip:192.0.2.1', 3))).toBe(0);
    expect(await settle(store.hit('call:ip:192.0.2.1', 3))).toBe(0);
    expect(await settle(store.hit('call:ip:192.0.2.1', 3))).toBe(0);
    // The fourth call of the window is refused from the local count, not answered with an error.
    expect(await settle(store.hit('call:ip:192.0.2.1', 3))).toBeGreaterThan(0);
    // A new window: the player who waited is let in again, although nothing could be synced.
    await sleep(windowMs + 100);
    expect(await settle(store.hit('call:ip:192.0.2.1', 3))).toBe(0);
    expect(await settle(store.hit('call:ip:192.0.2.1', 3))).toBe(0);
  });
});

describe.each(DB_KINDS)('a flood of refused calls on %s', (kind) => {
  it('lets exactly the limit through, then refuses the rest without a database write per call', async () => {
    const db = await createTestDb(kind);
    const addHits = vi.spyOn(rateLimitsRepository, 'addHits');
    try {
      const store = createCallLimitStore(db.kysely, quiet);
      const verdicts: number[] = [];
      for (let i = 0; i < 1_000; i++) verdicts.push(await settle(store.hit('call:ip:198.51.100.7', 10)));
      expect(verdicts.filter((v) => v === 0)).toHaveLength(10);
      // The first half of the allowance is counted locally, the second half one sync per call; past the
      // limit, nothing but the once-a-second batch (this loop takes well under the 60 s window).
      expect(addHits.mock.calls.length).toBeLessThan(20);
      await store.flush();
      const row = await db.kysely.selectFrom('rate_limits').select('hits').where('key', '=', 'call:ip:198.51.100.7').executeTakeFirstOrThrow();
      expect(row.hits).toBe(1_000);
    } finally {
      addHits.mockRestore();
      await db.close();
    }
  });
});
