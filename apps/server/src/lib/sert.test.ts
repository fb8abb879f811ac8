import { describe, expect, it } from 'vitest';
import { maskSert, newSert, normalizeSert, SERT_ALPHABET } from './sert';

describe('certificate texts', () => {
  it('draws readable groups from an alphabet without look-alikes', () => {
    for (let i = 0; i < 200; i++) expect(newSert()).toMatch(/^ADN(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
    expect(SERT_ALPHABET).toHaveLength(32);
    expect(SERT_ALPHABET).not.toMatch(/[ILOU]/);
  });

  it('uses every symbol in every position about equally (80 uniform bits)', () => {
    const counts = new Map<string, number>();
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const body = newSert().slice(4).replace(/-/g, '');
      counts.set(body[0]!, (counts.get(body[0]!) ?? 0) + 1);
      counts.set(`last${body[15]}`, (counts.get(`last${body[15]}`) ?? 0) + 1);
    }
    for (const ch of SERT_ALPHABET) {
      expect(counts.get(ch) ?? 0).toBeGreaterThan(n / 32 / 2);
      expect(counts.get(`last${ch}`) ?? 0).toBeGreaterThan(n / 32 / 2);
    }
  });

  it('reads what players type: any case, spaces, no prefix, O for 0, I and L for 1', () => {
    expect(normalizeSert('adn-7kq2-m9xd-4tpw-h3rc')).toBe('ADN-7KQ2-M9XD-4TPW-H3RC');
    expect(normalizeSert(' 7KQ2 M9XD 4TPW H3RC ')).toBe('ADN-7KQ2-M9XD-4TPW-H3RC');
    expect(normalizeSert('ADN-OOIL-0000-0000-0000')).toBe('ADN-0011-0000-0000-0000');
    expect(normalizeSert('ADN-7KQ2-M9XD-4TPW')).toBeNull();
    expect(normalizeSert('ADN-7KQ2-M9XD-4TPW-H3RU')).toBeNull();
    expect(normalizeSert('привет')).toBeNull();
  });

  it('reads Cyrillic letters drawn like the code\'s Latin ones, as a player on a Russian keyboard retypes a screenshot', () => {
    // Review finding: «АDN-DVХS-РЕР4-ВРZВ-WМVN» (Cyrillic А, Х, Р, Е, В, М) answered «Такого кода не бывает».
    expect(normalizeSert('АDN-DVХS-РЕР4-ВРZВ-WМVN')).toBe('ADN-DVXS-PEP4-BPZB-WMVN');
    expect(normalizeSert('адн-кмнт-сеух-зово-рааа')).toBeNull();
    expect(normalizeSert('ann-кмнт-сеух-зово-рааа')).toBeNull();
    expect(normalizeSert('кмнт сеух зово рвва')).toBe('ADN-KMHT-CEYX-30B0-PBBA');
    // Letters with no Latin twin in the alphabet still refuse it.
    expect(normalizeSert('ADN-7KQ2-M9XD-4TPW-H3RЖ')).toBeNull();
  });

  it('masks all but the first and last group', () => {
    expect(maskSert('ADN-7KQ2-M9XD-4TPW-H3RC')).toBe('ADN-7KQ2-****-****-H3RC');
  });
});
