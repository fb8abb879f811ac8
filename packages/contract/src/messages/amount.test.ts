import { describe, expect, it } from 'vitest';
import { adenaText, formatAmount } from './amount';

describe('amounts in Russian texts', () => {
  it('groups thousands with a space, for numbers and bigints alike', () => {
    expect(formatAmount(0)).toBe('0');
    expect(formatAmount(999)).toBe('999');
    expect(formatAmount(1_000)).toBe('1 000');
    expect(formatAmount(1_234_567n)).toBe('1 234 567');
    expect(formatAmount(-1_234_567)).toBe('-1 234 567');
    expect(formatAmount(9_007_199_254_740_991n)).toBe('9 007 199 254 740 991');
  });
  it('writes the same digits as ru-RU number formatting, with the separator asked for', () => {
    const ru = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 });
    for (const v of [1, 12, 1_234, 1_000_000, 987_654_321, -5_000]) expect(formatAmount(v, '\u00a0')).toBe(ru.format(v));
  });
  it('names adena after the amount', () => {
    expect(adenaText(5_000_000n)).toBe('5 000 000 аден');
    expect(adenaText(1_000, '\u00a0')).toBe('1\u00a0000\u00a0аден');
  });
});
