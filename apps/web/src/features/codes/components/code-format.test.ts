import { describe, expect, it } from 'vitest';
import { aden, adenAcc, adenShort, estimatePrice } from './code-format';

const plain = (s: string) => s.replace(/\u00a0/g, ' ');

describe('amounts after «на» and «за»', () => {
  it('take the accusative: код на 150 001 адену, not «адена»', () => {
    // Review finding: «Ваш код на 150 001 адена активирован».
    expect(plain(adenAcc(150_001))).toBe('150 001 адену');
    expect(plain(adenAcc(5_000_000))).toBe('5 000 000 аден');
    expect(plain(adenAcc(22))).toBe('22 адены');
    expect(plain(aden(150_001))).toBe('150 001 адена');
  });

  it('the shorthand written out in full takes its own plural and case: «150 001 адена», «код на 150 001 адену», «от 150 001 адены»', () => {
    // Review finding: adenShort wrote «150 001 аден» (and «на 150 001 аден») when the shorthand fell back to digits.
    expect(plain(adenShort(150_001))).toBe('150 001 адена');
    expect(plain(adenShort(150_001, 'acc'))).toBe('150 001 адену');
    expect(plain(adenShort(150_001, 'gen'))).toBe('150 001 адены');
    expect(plain(adenShort(1_000_001, 'acc'))).toBe('1 000 001 адену');
    // The shorthand itself keeps «аден» («1,5кк аден»), whatever the case.
    expect(plain(adenShort(1_500_000, 'acc'))).toBe('1,5кк аден');
    expect(plain(adenShort(2_000_000_000))).toBe('2ккк аден');
  });

  it('prices a code as the server does, also where nominal × fee passes 2^53', () => {
    expect(estimatePrice(1_000_000, 300)).toBe(1_030_000);
    expect(estimatePrice(1_000_001, 300)).toBe(1_030_002);
    expect(estimatePrice(2_353_607_476_497_467, 300)).toBe(2_424_215_700_792_392);
  });
});
