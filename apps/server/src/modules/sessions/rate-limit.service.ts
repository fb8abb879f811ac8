import { waitText } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { rateLimitsRepository as repo, type RateLimitsQueryable } from './rate-limits.repository';

export interface RateRule {
  limit: number;
  windowMs: number;
}

/** A progressive delay instead of a lockout: `free` tries, then waits doubling from `baseMs` to `maxMs`. */
export interface DelayRule {
  free: number;
  baseMs: number;
  maxMs: number;
  /** Quiet this long, the key starts over. */
  resetMs: number;
}

/** 429 with Retry-After; without a message of its own it says how long to wait, not just «позже». */
export const tooMany = (retryAfterS: number, message?: string) => {
  const retryAfter = Math.max(1, Math.ceil(retryAfterS));
  return new AppError('TOO_MANY_ATTEMPTS', { retryAfter, message: message ?? `Слишком много попыток. Попробуйте через ${waitText(retryAfter)}` });
};

/**
 * Fixed-window counters in the database, shared by every process. Two uses: `count` for
 * attempts that are limited whatever their outcome (sending a code), and `take` (counted before,
 * given back unless it failed) for things limited by failures (wrong passwords, wrong codes).
 */
export function createRateLimiter(db: RateLimitsQueryable, now: () => Date) {
  const retryAfter = (windowStart: Date, rule: RateRule, at: Date) => (windowStart.getTime() + rule.windowMs - at.getTime()) / 1000;
  return {
    /** Counts one; refuses with 429 when that one is over the limit. */
    async count(key: string, rule: RateRule) {
      const at = now();
      const { hits, windowStart } = await repo.hit(db, key, rule.windowMs, at);
      if (hits > rule.limit) throw tooMany(retryAfter(windowStart, rule, at));
    },
    /**
     * A try limited by its failures (a wrong code, a wrong password, a gift-code guess), counted on
     * every key before it runs, so that parallel tries cannot all pass a look at the count: 429 once a key's
     * window is used up (what it counted on the keys before is given back). `giveBack()` returns the
     * try to every key when it turned out not to be a failure.
     */
    async take(keys: ReadonlyArray<readonly [string, RateRule]>) {
      // Each hit is given back in the window it was counted in: once that window has ended, the
      // new one owes it nothing.
      const counted: Array<{ key: string; windowStart: Date }> = [];
      const giveBack = async () => {
        for (const c of counted.splice(0)) await repo.refundHit(db, c.key, c.windowStart);
      };
      try {
        for (const [key, rule] of keys) {
          const at = now();
          const { hits, windowStart } = await repo.hit(db, key, rule.windowMs, at);
          counted.push({ key, windowStart });
          if (hits > rule.limit) throw tooMany(retryAfter(windowStart, rule, at));
        }
      } catch (err) {
        await giveBack();
        throw err;
      }
      return { giveBack };
    },
    /** Counts a try under a progressive delay; 429 with the wait when it comes too soon. */
    async claim(key: string, rule: DelayRule) {
      if (await repo.claimTry(db, key, rule, now())) return;
      const row = await repo.peek(db, key);
      const at = now().getTime();
      const last = row ? new Date(row.window_start).getTime() : at;
      const delay = Math.min(rule.maxMs, rule.baseMs * 2 ** Math.max(0, (row?.hits ?? rule.free) - rule.free));
      throw tooMany((last + delay - at) / 1000);
    },
    /** When the current window of `key` began; null when it has none. */
    async windowStart(key: string) {
      const row = await repo.peek(db, key);
      return row ? new Date(row.window_start) : null;
    },
    /** True for the first call with this key in its window of `windowMs`, over all processes: a warning said once. */
    async firstInWindow(key: string, windowMs: number) {
      return (await repo.hit(db, key, windowMs, now())).hits === 1;
    },
    /** Gives a claimed try back. */
    refund: (key: string) => repo.refundTry(db, key),
    clear: (key: string) => repo.clear(db, key),
    /** Drops windows no rule can still be counting in. */
    sweep: (at: Date) => repo.sweep(db, at),
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
