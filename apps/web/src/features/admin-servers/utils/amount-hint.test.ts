import { describe, expect, it } from 'vitest';
import { amountHint } from './amount-hint';

describe('the server form’s hint under an amount', () => {
  it.each([
    ['1', 2, '=\u00a01\u00a0монета эйнхасад'],
    ['3', 2, '=\u00a03\u00a0монеты эйнхасад'],
    ['25', 2, '=\u00a025\u00a0монет эйнхасад'],
    ['1', 1, '=\u00a01\u00a0адена'],
    ['1,5кк', 1, '=\u00a01\u00a0500\u00a0000\u00a0аден'],
    ['22к', 1, '=\u00a022\u00a0000\u00a0аден'],
  ] as const)('%s of currency %s → %s', (text, currency, hint) => expect(amountHint(text, currency)).toBe(hint));

  it('says nothing under text that is not an amount', () => {
    expect(amountHint('', 1)).toBeUndefined();
    expect(amountHint('много', 2)).toBeUndefined();
  });
});
