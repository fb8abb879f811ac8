import { describe, expect, it } from 'vitest';
import { nextLogRead } from './webhook';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const pending = (inMs: number | null) => ({ status: 'pending', next_attempt_at: inMs === null ? null : new Date(NOW + inMs).toISOString() });

describe("the delivery log's next read", () => {
  it('reads again soon only when a try is due soon, and not at all when nothing waits', () => {
    expect(nextLogRead(undefined, NOW)).toBe(false);
    expect(nextLogRead([{ status: 'delivered', next_attempt_at: null }], NOW)).toBe(false);
    // A new delivery, or a retry due now: 2 s.
    expect(nextLogRead([pending(null)], NOW)).toBe(2_000);
    expect(nextLogRead([pending(-5_000)], NOW)).toBe(2_000);
    // A retry 10 s away: just after it.
    expect(nextLogRead([pending(10_000)], NOW)).toBe(12_000);
    // A dead endpoint's retry hours away: every 30 s, not every 2 s for three days.
    expect(nextLogRead([pending(4 * 60 * 60_000)], NOW)).toBe(30_000);
    expect(nextLogRead([pending(4 * 60 * 60_000), pending(5_000)], NOW)).toBe(7_000);
  });
});
