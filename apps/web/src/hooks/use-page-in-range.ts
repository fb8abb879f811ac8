import { useEffect, useRef } from 'react';

/**
 * A list's page count, and a page past its end moved to the last page there is: the list shrank while it
 * was open (incidents acknowledged, requests decided) or the page came from an old address, and the server
 * answered an empty page with rows before it — a bare table header, no pager, nothing saying there are more.
 * `page` is the page asked for; `placeholder`, that `data` is still another page's or filter's (keepPreviousData).
 */
export function usePageInRange(
  data: { data: unknown[]; total: number } | undefined,
  perPage: number,
  page: number,
  goTo: (page: number) => void,
  placeholder = false,
): number {
  const last = data ? Math.max(1, Math.ceil(data.total / perPage)) : null;
  const empty = data !== undefined && !placeholder && data.data.length === 0;
  // goTo is a new function each render; the move depends only on what was read.
  const latestGoTo = useRef(goTo);
  latestGoTo.current = goTo;
  useEffect(() => {
    if (last !== null && empty && page > last) latestGoTo.current(last);
  }, [last, empty, page]);
  return last ?? 1;
}
