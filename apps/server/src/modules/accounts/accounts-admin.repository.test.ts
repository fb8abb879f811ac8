import { describe, expect, it } from 'vitest';
import { caseless } from './accounts-admin.repository';

describe('caseless search pattern', () => {
  it('spells every letter in both cases, Cyrillic and Latin alike', () => {
    expect(caseless('Иван')).toBe('[иИ][вВ][аА][нН]');
    expect(caseless('ёж7')).toBe('[ёЁ][жЖ]7');
  });

  it('takes regular-expression characters literally', () => {
    expect(caseless('a.b*(c)%_')).toBe('[aA]\\.[bB]\\*\\([cC]\\)\\%\\_');
    const re = new RegExp(caseless('x.y'));
    expect(re.test('X.Y')).toBe(true);
    expect(re.test('xzy')).toBe(false);
  });
});
