// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, playerUser, settle, type } from '../../../test/dom';
import { TwoFactorStep } from './two-factor-step';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe("the sign-in's second step", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('takes a recovery code typed on the Russian layout as the Latin one', async () => {
    const bodies: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        bodies.push(JSON.parse(String(init.body)));
        return answer(200, { access_token: 'token-new', user: playerUser(true) });
      }),
    );
    sessionStorage.setItem('two_factor_token', 'pending');
    ({ root } = await mountWithQuery(() => createElement(TwoFactorStep)));
    await act(async () => type(document.querySelector('[data-testid="two-factor-code"]') as HTMLInputElement, 'фисву-апршо'));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Подтвердить')!.click());
    await settle();
    expect(bodies).toEqual([{ two_factor_token: 'pending', code: 'abcdefghij' }]);
  });
});
