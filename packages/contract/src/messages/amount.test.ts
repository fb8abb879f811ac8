import { describe, expect, it } from 'vitest';
import { adenaText, amountText, formatAmount, limitRefusalText, plural } from './amount';

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
    expect(adenaText(1)).toBe('1 адена');
    expect(adenaText(1_000, '\u00a0')).toBe('1\u00a0000\u00a0аден');
  });

  it('chooses the Russian plural form over 0, 1, 2, 5, 11, 21, 22, 25, 111 and 1 024', () => {
    const cases: [number, string, string][] = [
      [0, '0 аден', '0 монет эйнхасад'],
      [1, '1 адена', '1 монета эйнхасад'],
      [2, '2 адены', '2 монеты эйнхасад'],
      [5, '5 аден', '5 монет эйнхасад'],
      [11, '11 аден', '11 монет эйнхасад'],
      [21, '21 адена', '21 монета эйнхасад'],
      [22, '22 адены', '22 монеты эйнхасад'],
      [25, '25 аден', '25 монет эйнхасад'],
      [111, '111 аден', '111 монет эйнхасад'],
      [1_024, '1 024 адены', '1 024 монеты эйнхасад'],
    ];
    for (const [n, adena, coins] of cases) {
      expect(amountText(n, 1)).toBe(adena);
      expect(amountText(n, 2)).toBe(coins);
      expect(amountText(BigInt(n), 2)).toBe(coins);
    }
    expect(plural(12, ['код', 'кода', 'кодов'])).toBe('кодов');
    expect(plural(9_007_199_254_740_993n, ['код', 'кода', 'кодов'])).toBe('кода');
    expect(plural(-1, ['код', 'кода', 'кодов'])).toBe('код');
  });
  it('writes the genitive and accusative after a number', () => {
    expect(amountText(1, 1, ' ', 'gen')).toBe('1 адены');
    expect(amountText(3, 1, ' ', 'gen')).toBe('3 аден');
    expect(amountText(21, 2, ' ', 'acc')).toBe('21 монету эйнхасад');
    expect(amountText(3, 1, ' ', 'acc')).toBe('3 адены');
  });
  it('refuses an amount outside a server\'s limits in one text for the server and the web', () => {
    expect(limitRefusalText({ min: 1_000_000, max: 5_000_000_000 }, 1)).toBe('От 1 000 000 до 5 000 000 000 аден');
    expect(limitRefusalText({ min: 10n, max: 21n }, 2)).toBe('От 10 до 21 монеты эйнхасад');
    expect(limitRefusalText({ min: 0, max: 0 }, 1)).toBe('Сейчас этот сервер не принимает такие заявки');
  });
});
