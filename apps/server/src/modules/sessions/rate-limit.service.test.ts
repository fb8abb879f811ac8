import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, DB_KINDS, type TestDb } from '../../../test/harness';
import { createRateLimiter } from './rate-limit.service';

const RULE = { limit: 3, windowMs: 60_000 };

describe.each(DB_KINDS)('limits on failures (take, give back) on %s', (kind) => {
  let db: TestDb;
  let at = Date.parse('2026-05-01T10:00:00Z');
  const now = () => new Date(at);
  beforeAll(async () => {
    db = await createTestDb(kind);
  });
  afterAll(() => db.close());
  const hits = async (key: string) => (await db.kysely.selectFrom('rate_limits').select('hits').where('key', '=', key).executeTakeFirst())?.hits;

  it('counts parallel tries before any is checked: no more than the limit pass, and successes are given back once', async () => {
    const limiter = createRateLimiter(db.kysely, now);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => limiter.take([['burst', RULE]])));
    const passed = outcomes.filter((o) => o.status === 'fulfilled');
    expect(passed).toHaveLength(RULE.limit);
    // The refused ones gave their hit back; the passed ones hold theirs until they say how it went.
    expect(await hits('burst')).toBe(RULE.limit);
    const first = (passed[0] as PromiseFulfilledResult<{ giveBack(): Promise<void> }>).value;
    await first.giveBack();
    await first.giveBack(); // a second give-back of the same try gives nothing
    expect(await hits('burst')).toBe(RULE.limit - 1);
  });

  it('a refusal says how long to wait in words, beside Retry-After in seconds', async () => {
    const limiter = createRateLimiter(db.kysely, now);
    const hour = { limit: 1, windowMs: 3_600_000 };
    await limiter.count('words', hour);
    at += 15 * 60_000;
    const err = await limiter.count('words', hour).catch((e) => e);
    expect(err.options.retryAfter).toBe(45 * 60);
    expect(err.message).toBe('Слишком много попыток. Попробуйте через 45 мин');
  });

  it('gives a try back only to the window it was counted in', async () => {
    const limiter = createRateLimiter(db.kysely, now);
    const old = await limiter.take([['window', RULE]]);
    at += RULE.windowMs + 1;
    await limiter.take([['window', RULE]]);
    await old.giveBack();
    expect(await hits('window')).toBe(1);
  });
});

describe.each(DB_KINDS)('a progressive delay after very many tries on %s', (kind) => {
  let db: TestDb;
  const at = Date.parse('2026-05-01T10:00:00Z');
  beforeAll(async () => {
    db = await createTestDb(kind);
  });
  afterAll(() => db.close());

  it('still answers 429 (not a 500 from 2^1100 overflowing) and lets the next try through once the longest wait has passed', async () => {
    const rule = { free: 5, baseMs: 1_000, maxMs: 60_000, resetMs: 15 * 60_000 };
    const limiter = createRateLimiter(db.kysely, () => new Date(at));
    // A day of tries, one a minute after the free ones: the count is far past 2's float range.
    await db.kysely.insertInto('rate_limits').values({ key: 'login:ip:1.2.3.4', hits: 1100, window_start: new Date(at - 30_000) }).execute();
    await expect(limiter.claim('login:ip:1.2.3.4', rule)).rejects.toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
    await db.kysely.updateTable('rate_limits').set({ window_start: new Date(at - 61_000) }).where('key', '=', 'login:ip:1.2.3.4').execute();
    await expect(limiter.claim('login:ip:1.2.3.4', rule)).resolves.toBeUndefined();
    // Counted, not reset: the next one waits again.
    await expect(limiter.claim('login:ip:1.2.3.4', rule)).rejects.toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
  });
});
