import { describe, expect, it } from 'vitest';
import { agree } from './agree';

describe('a verb before an amount agrees with it', () => {
  it('is singular feminine for an amount ending in 1 (but not 11): «вернулась 151 501 адена»', () => {
    // Review finding: «на баланс вернулось 151 501 адена», «С баланса списано 300 001 адена».
    expect(agree(151_501, 'returned')).toBe('вернулась');
    expect(agree(300_001, 'charged')).toBe('списана');
    expect(agree(21, 'needed')).toBe('нужна');
    expect(agree(1, 'paid')).toBe('оплачена');
    expect(agree(1n, 'refunded')).toBe('возвращена');
  });

  it('is plural for 2–4 and neuter for 0, 5–20 and 11–14: «списаны 22 адены», «списано 11 аден»', () => {
    expect(agree(22, 'charged')).toBe('списаны');
    expect(agree(3, 'needed')).toBe('нужны');
    expect(agree(5_000_000, 'returned')).toBe('вернулось');
    expect(agree(11, 'charged')).toBe('списано');
    expect(agree(111, 'refunded')).toBe('возвращено');
    expect(agree(0, 'paid')).toBe('оплачено');
  });
});
