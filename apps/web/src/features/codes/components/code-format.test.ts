import { describe, expect, it } from 'vitest';
import { aden, adenAcc } from './code-format';

describe('amounts after «на» and «за»', () => {
  it('take the accusative: код на 150 001 адену, not «адена»', () => {
    // Review finding: «Ваш код на 150 001 адена активирован».
    expect(adenAcc(150_001).replace(/\u00a0/g, ' ')).toBe('150 001 адену');
    expect(adenAcc(5_000_000).replace(/\u00a0/g, ' ')).toBe('5 000 000 аден');
    expect(adenAcc(22).replace(/\u00a0/g, ' ')).toBe('22 адены');
    expect(aden(150_001).replace(/\u00a0/g, ' ')).toBe('150 001 адена');
  });
});
