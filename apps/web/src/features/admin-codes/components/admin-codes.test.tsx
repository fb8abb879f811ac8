// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { AdminCodes } from './admin-codes';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe("the operators' code lookup", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    history.replaceState(null, '', '/');
  });

  it('shows in its box the code the address names, after Back as well', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => answer(404, { message: 'Код не найден' })));
    history.replaceState(null, '', '/admin/codes?sert=ADN-AAAA-BBBB');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
    const box = () => document.querySelector('input') as HTMLInputElement;
    expect(box().value).toBe('ADN-AAAA-BBBB');
    await act(async () => history.pushState(null, '', '/admin/codes?id=12'));
    await settle();
    expect(box().value).toBe('12');
    await act(async () => {
      history.back();
      await new Promise((r) => setTimeout(r, 50));
    });
    await settle();
    expect(location.search).toBe('?sert=ADN-AAAA-BBBB');
    expect(box().value).toBe('ADN-AAAA-BBBB');
  });
});
