// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup } from '../test/dom';
import { useListTop } from './use-list-top';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function List({ page, top }: { page: number; top: number }) {
  const ref = useListTop<HTMLDivElement>(page);
  return createElement('div', { ref, 'data-top': top }, `page ${page}`);
}

describe('a paged list’s top on a new page', () => {
  let root: Root | null = null;
  let rect: { mockRestore(): void } | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    rect?.mockRestore();
    rect = null;
  });

  async function show(page: number, top: number) {
    await act(async () => root!.render(createElement(List, { page, top })));
  }
  function mount(barBottom: number | null) {
    // The list's top as the window is scrolled: the element says where it is drawn.
    rect = vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLElement) {
      const top = this.dataset.view === 'app-bar' ? (barBottom ?? 0) - 64 : Number(this.dataset.top ?? 0);
      return { top, bottom: top + 64, left: 0, right: 0, width: 0, height: 64, x: 0, y: top, toJSON: () => ({}) } as DOMRect;
    });
    if (barBottom !== null) {
      const bar = document.body.appendChild(document.createElement('header'));
      bar.dataset.view = 'app-bar';
      bar.style.position = 'sticky';
    }
    const scrollBy = vi.fn();
    vi.stubGlobal('scrollBy', scrollBy);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    return scrollBy;
  }

  it('scrolls up to the list’s top, under the sticky app bar, when the pager below turns the page', async () => {
    const scrollBy = mount(64);
    await show(1, -900);
    expect(scrollBy).not.toHaveBeenCalled();
    await show(2, -900);
    expect(scrollBy).toHaveBeenCalledWith({ top: -900 - 64 - 8 });
  });

  it('leaves the window alone when the list’s top is in view, or the page is the same', async () => {
    const scrollBy = mount(null);
    await show(1, 120);
    await show(2, 120);
    await show(2, -500);
    expect(scrollBy).not.toHaveBeenCalled();
    // Without the app bar (the Mini App) the list's top goes to the window's top.
    await show(3, -500);
    expect(scrollBy).toHaveBeenCalledWith({ top: -508 });
  });
});
