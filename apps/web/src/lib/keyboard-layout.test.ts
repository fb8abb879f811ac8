import { describe, expect, it } from 'vitest';
import { latinKeys } from './keyboard-layout';

describe('text typed on the Russian layout', () => {
  it('reads as the QWERTY keys it was typed with, capitals as capitals; digits, dashes and Latin letters stay', () => {
    expect(latinKeys('фисву-апршо')).toBe('abcde-fghij');
    expect(latinKeys('ЙЦУКЕН 123-ячсмить')).toBe('QWERTY 123-zxcvbnm');
    expect(latinKeys('abc12-ЁхъжэБЮ')).toBe('abc12-`[];\',.');
  });
});
