import { describe, expect, it } from 'vitest';
import { AmountSchema } from './primitives';

const messages = (v: unknown) => {
  const r = AmountSchema.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe('an amount', () => {
  it('says only what is wrong with it', () => {
    expect(messages(Number.MAX_SAFE_INTEGER)).toEqual([]);
    // A whole number past what JSON carries exactly is too big, not «not whole».
    expect(messages(2 ** 53)).toEqual(['Слишком большая сумма']);
    expect(messages(1e300)).toEqual(['Слишком большая сумма']);
    expect(messages(1.5)).toEqual(['Сумма должна быть целым числом']);
    expect(messages(0)).toHaveLength(1);
  });
});
