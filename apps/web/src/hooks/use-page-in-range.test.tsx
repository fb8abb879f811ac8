// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { renderHook } from '../test/dom';
import { usePageInRange } from './use-page-in-range';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('a list page past the end', () => {
  it('moves to the last page there is, once the answer is for the page asked', async () => {
    const goTo = vi.fn();
    const { unmount } = await renderHook(new QueryClient(), () => usePageInRange({ data: [], total: 20 }, 20, 2, goTo));
    expect(goTo).toHaveBeenCalledWith(1);
    await unmount();
  });

  it('does not move on a previous filter\u2019s empty answer still shown while page 3 of another loads', async () => {
    const goTo = vi.fn();
    const { unmount } = await renderHook(new QueryClient(), () => usePageInRange({ data: [], total: 0 }, 20, 3, goTo, true));
    expect(goTo).not.toHaveBeenCalled();
    await unmount();
  });
});
