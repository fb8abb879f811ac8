import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../../../test/harness';
import { createCallLimitStore } from './call-limits.service';

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
