import { type RefObject, useEffect, useRef } from 'react';
import { useLocation } from 'wouter';

/**
 * On a new page (a new path; a ?tab= change is the same page): the tab's title names it (page-names), the window
 * scrolls to the top and focus moves to `main` (tabIndex -1), so a screen reader starts at the new
 * page rather than at the link that led there. The first page keeps focus where the browser put it.
 * The operators' unread counter («(3) » before the title, admin-shift's shift-signals) is kept.
 */
export function usePageChange(main: RefObject<HTMLElement | null>) {
  const [pathname] = useLocation();
  const shown = useRef(pathname);
  useEffect(() => {
    let current = true;
    const setTitle = (title: string) => {
      if (current) document.title = (/^\(\d+\) /.exec(document.title)?.[0] ?? '') + title;
    };
    if (pathname === '/') setTitle('Адена Кошелёк');
    // A chunk that will not load: chunk-reload's reload, or the old title.
    else import('./page-names').then((m) => setTitle(m.pageTitle(pathname)), () => {});
    if (shown.current !== pathname) {
      shown.current = pathname;
      window.scrollTo(0, 0);
      main.current?.focus({ preventScroll: true });
    }
    return () => {
      current = false;
    };
  }, [pathname, main]);
}
