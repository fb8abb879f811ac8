import { describe, expect, it } from 'vitest';
import { AmountSchema, BigIdParamSchema, IdParamSchema, PageQuerySchema } from './primitives';

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

describe('an id or page number in a path or query string', () => {
  const said = (schema: { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: Array<{ message: string }> } } }, v: unknown) => {
    const r = schema.safeParse(v);
    return r.success ? r.data : r.error!.issues.map((i) => i.message);
  };

  it('is decimal digits: no other spelling of a number reads as one', () => {
    expect(said(IdParamSchema, '1')).toBe(1);
    expect(said(IdParamSchema, '2147483647')).toBe(2_147_483_647);
    expect(said(BigIdParamSchema, '9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    for (const v of ['0x1', '1e0', '+1', ' 1', '1 ', '1.0', '١', '', '-1', '0', '2147483648', 1]) {
      expect(said(IdParamSchema, v)).toEqual(['Некорректный идентификатор']);
    }
    expect(said(BigIdParamSchema, '9007199254740992')).toEqual(['Некорректный идентификатор']);
  });

  it('pages from 1, 1 when absent, in Russian when wrong', () => {
    expect(PageQuerySchema.parse({})).toEqual({ page: 1, per_page: expect.any(Number) });
    expect(PageQuerySchema.parse({ page: '3', per_page: '100' })).toEqual({ page: 3, per_page: 100 });
    for (const page of ['0', '0x2', '2.0', 'abc']) {
      expect(PageQuerySchema.safeParse({ page }).error?.issues.map((i) => i.message)).toEqual(['Номер страницы — целое число от 1']);
    }
    expect(PageQuerySchema.safeParse({ per_page: '101' }).error?.issues.map((i) => i.message)).toEqual(['Не больше 100 записей на странице']);
    expect(PageQuerySchema.safeParse({ per_page: '1e1' }).error?.issues.map((i) => i.message)).toEqual(['Записей на странице — целое число от 1 до 100']);
  });
});
