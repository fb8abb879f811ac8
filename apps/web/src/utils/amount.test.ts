import { describe, expect, it } from 'vitest';
import { formatAmount, formatShort } from './format-amount';
import { amountTooBig, parseAmount } from './parse-amount';
import { plural } from './plural';

describe('parseAmount reads players’ shorthand', () => {
  it.each([
    ['1кк', 1_000_000],
    ['1.5кк', 1_500_000],
    ['1,5кк', 1_500_000],
    ['2,25 кк', 2_250_000],
    ['0,5к', 500],
    ['1,5КК', 1_500_000],
    ['1ккк', 1_000_000_000],
    ['500к', 500_000],
    ['2KK', 2_000_000],
    ['1 500 000', 1_500_000],
    ['1.1кк', 1_100_000],
    ['0.000001кк', 1],
    ['42', 42],
    // Thousands grouped with a dot or comma (no suffix): ten thousand, not ten.
    ['10.000', 10_000],
    ['1,000,000', 1_000_000],
    ['500.000', 500_000],
    ['1.500кк', 1_500_000],
    // One dot or comma closing the amount, as at the end of a sentence.
    ['1кк.', 1_000_000],
    ['1 500 000.', 1_500_000],
    ['500к,', 500_000],
    ['1,5кк. ', 1_500_000],
    ['42,', 42],
    ['10.000.', 10_000],
  ])('%s → %d', (text, value) => expect(parseAmount(text)).toBe(value));

  it.each(['', 'abc', '1.5', '10,25', '-5', '1кккк', '0.0000001кк', '1e6', '9999999999999999', '9.999.999.999.999.999', '.', ',', '1..', '1.,', '1кк.,', '.5кк', '1000.000', '2500,000', '1 000.000', '1.000 000', '1,000000', '10.0000', '0,500', '1.000,000', '1.0', '1000.00'])('refuses %j', (text) =>
    expect(parseAmount(text)).toBeNull(),
  );

  it('tells an amount too large to send (above 2^53 − 1) from text that is no amount', () => {
    expect(['9007199254740992', '9.999.999.999.999.999', '10000000ккк'].map(amountTooBig)).toEqual([true, true, true]);
    expect(['9007199254740991', '1.5', 'abc', '', '0'].map(amountTooBig)).toEqual([false, false, false, false, false]);
  });
});

describe('amounts are shown for ru-RU', () => {
  it('groups thousands with a no-break space', () => {
    expect(formatAmount(1_234_567).replace(/\s/g, ' ')).toBe('1 234 567');
  });
  it('writes a negative amount with a minus sign, not a hyphen', () => {
    expect(formatAmount(-555_000_000)).toBe('\u2212555\u00a0000\u00a0000');
    expect(formatAmount(-5n)).toBe('\u22125');
  });
  it('uses кк shorthand where it is exact', () => {
    expect(formatShort(1_500_000)).toBe('1,5кк');
    expect(formatShort(2_000_000_000)).toBe('2ккк');
    // Grouped as formatAmount groups: not «1000ккк».
    expect(formatShort(1_000_000_000_000).replace(/\s/g, ' ')).toBe('1 000ккк');
    expect(formatShort(1_234_500_000_000).replace(/\s/g, ' ')).toBe('1 234,5ккк');
    expect(formatShort(1_234_567).replace(/\s/g, ' ')).toBe('1 234 567');
    expect(formatShort(999)).toBe('999');
    // Near the largest amount a float division rounds: exactness is decided on the integer.
    expect(formatShort(9_007_199_240_000_001).replace(/\s/g, ' ')).toBe('9 007 199 240 000 001');
    expect(formatShort(9_007_199_240_000_000).replace(/\s/g, ' ')).toBe('9 007 199,24ккк');
  });
  it('picks Russian plural forms', () => {
    const forms = ['код', 'кода', 'кодов'] as const;
    expect([1, 2, 5, 11, 21, 22, 25].map((n) => plural(n, forms))).toEqual(['код', 'кода', 'кодов', 'кодов', 'код', 'кода', 'кодов']);
  });
});
