import { useEffect, useRef } from 'react';

/** Room left above the list's top, under the sticky app bar. */
const GAP_PX = 8;

/**
 * A paged list's top, brought into view when its page changes: the pager is under the list, and the new page was
 * shown with the window still scrolled to its bottom (or past its end, on a shorter page). Only when the top is out
 * of view above (or under the players' sticky app bar); a list whose top is on screen is left where it is. The first
 * page shown moves nothing. Put the ref on what starts the list (its heading or filters).
 */
export function useListTop<T extends HTMLElement = HTMLElement>(page: number) {
  const ref = useRef<T>(null);
  const shown = useRef(page);
  useEffect(() => {
    if (shown.current === page) return;
    shown.current = page;
    const el = ref.current;
    if (!el) return;
    // The players' app bar sticks to the window's top (not in the Telegram Mini App, where it is not shown).
    const bar = document.querySelector<HTMLElement>('[data-view="app-bar"]');
    const under = bar && getComputedStyle(bar).position === 'sticky' ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    const top = el.getBoundingClientRect().top;
    if (top < under) window.scrollBy({ top: top - under - GAP_PX });
  }, [page]);
  return ref;
}
