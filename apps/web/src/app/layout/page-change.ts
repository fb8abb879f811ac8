import { type RefObject, useEffect, useRef } from 'react';
import { useLocation } from 'wouter';
import { useBrandName } from '../../lib/public-config';

/**
 * On a new page (a new path; a ?tab= change is the same page): the tab's title names it (page-names), the window
 * scrolls to the top and focus moves to `main` (tabIndex -1), so a screen reader starts at the new
 * page rather than at the link that led there. The first page keeps focus where the browser put it.
 * The operators' unread counter («(3) » before the title, admin-shift's shift-signals) is kept. The title says the
 * service's name (BRAND_NAME) once the public config has come, the default until then (index.html's title).
 */
export function usePageChange(main: RefObject<HTMLElement | null>) {
  const [pathname] = useLocation();
  const brand = useBrandName();
  const shown = useRef(pathname);
  useEffect(() => {
    let current = true;
    const setTitle = (title: string) => {
      if (current) document.title = (/^\(\d+\) /.exec(document.title)?.[0] ?? '') + title;
    };
    if (pathname === '/') setTitle(brand);
    // A chunk that will not load: chunk-reload's reload, or the old title.
    else import('./page-names').then((m) => setTitle(m.pageTitle(pathname, brand)), () => {});
    if (shown.current !== pathname) {
      shown.current = pathname;
      window.scrollTo(0, 0);
      main.current?.focus({ preventScroll: true });
    }
    return () => {
      current = false;
    };
  }, [pathname, main, brand]);
}
