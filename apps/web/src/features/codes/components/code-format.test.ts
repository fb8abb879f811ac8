import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { aden, adenAcc, adenShort, codeTag, estimatePrice, refusedElsewhere } from './code-format';

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

describe('a refusal said after its dialog closed', () => {
  it('names the first field error, not only the 422 message', () => {
    const snackbar = vi.fn();
    const err = new ApiError(422, { message: 'Проверьте введённые данные', errors: { nominal: ['Номинал меньше минимального'] } });
    refusedElsewhere(snackbar, 'Код не выпущен', err);
    expect(snackbar).toHaveBeenCalledWith('Код не выпущен: номинал меньше минимального', 'error');
  });

  it('falls back to the answer\'s message, and says nothing after a lost answer', () => {
    const snackbar = vi.fn();
    refusedElsewhere(snackbar, 'Код не выпущен', new ApiError(409, { message: 'Недостаточно средств' }));
    refusedElsewhere(snackbar, 'Код не выпущен', new Error('offline'));
    expect(snackbar.mock.calls).toEqual([['Код не выпущен: недостаточно средств', 'error']]);
  });
});

describe('a code named apart from others of its nominal', () => {
  it('by its last group, whole or masked, else by its date', () => {
    // Review finding: every «Отменить» of one nominal was labelled «Отменить код на 5 000 000 аден».
    expect(codeTag({ sert: 'ADN-7KQ2-AB12-CD34-H3RC', created_at: '2026-11-01T12:00:00Z' })).toBe('…H3RC');
    expect(codeTag({ sert: 'ADN-7KQ2-****-****-Z9X8', created_at: '2026-11-01T12:00:00Z' })).toBe('…Z9X8');
    expect(codeTag({ sert: '', created_at: '2026-11-01T12:00:00Z' })).toMatch(/^от 01\.11\.2026/);
  });
});
