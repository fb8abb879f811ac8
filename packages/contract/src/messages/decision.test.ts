import { describe, expect, it } from 'vitest';
import { formatAmount } from './amount';
import { decisionText } from './decision';

const plain = (n: number) => formatAmount(n);
const d = (type: 'input' | 'output', amount: number, currency_type: 1 | 2 = 1, status = 'completed', comment: string | null = null) => ({
  type,
  amount,
  currency_type,
  status,
  comment,
});

describe('decisionText', () => {
  it('puts a deposit in the accusative and a withdrawal in the genitive, by the amount’s ending', () => {
    expect(decisionText(d('input', 1, 2), plain)).toBe('Пополнение на 1 монету эйнхасад зачислено');
    expect(decisionText(d('input', 3, 2), plain)).toBe('Пополнение на 3 монеты эйнхасад зачислено');
    expect(decisionText(d('input', 25, 2), plain)).toBe('Пополнение на 25 монет эйнхасад зачислено');
    expect(decisionText(d('input', 21), plain)).toBe('Пополнение на 21 адену зачислено');
    expect(decisionText(d('output', 21), plain)).toBe('Вывод 21 адены выполнен');
    expect(decisionText(d('output', 22, 2), plain)).toBe('Вывод 22 монет эйнхасад выполнен');
    expect(decisionText(d('output', 11), plain)).toBe('Вывод 11 аден выполнен');
    expect(decisionText(d('input', 2, 1, 'rejected', ' Персонаж не пришёл '), plain)).toBe('Пополнение на 2 адены отклонено: Персонаж не пришёл');
    expect(decisionText(d('output', 1, 1, 'rejected'), plain)).toBe('Вывод 1 адены отклонён');
  });

  it('says "of millions" after shorthand, and names the server first when given', () => {
    expect(decisionText(d('input', 1_500_000), () => '1,5кк')).toBe('Пополнение на 1,5кк аден зачислено');
    expect(decisionText(d('output', 21_000_000), () => '21кк')).toBe('Вывод 21кк аден выполнен');
    expect(decisionText(d('output', 2_000_001), plain, 'Scryde x50')).toBe('Scryde x50: вывод 2 000 001 адены выполнен');
  });
});
