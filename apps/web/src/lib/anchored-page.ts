import { type QueryKey, type UseQueryOptions, type UseQueryResult, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

/**
 * A page of a newest-first list whose later pages are read under the newest row page 1 of the same filters
 * showed (`before_id`, README "Stable pages of newest-first lists"), so rows written meanwhile do not push the
 * rows already seen onto the next page. Page 1 is read live and renews the anchor; other filters have none until
 * their page 1 is read (a page opened straight from the address pages as before). `options(beforeId)` gives the
 * query of a page, with `beforeId` in its key.
 */
export function useAnchoredPage<TQueryFnData, TData extends { data: ReadonlyArray<{ id: number }> }, TQueryKey extends QueryKey>(
  page: number,
  filters: unknown,
  options: (beforeId: number | undefined) => UseQueryOptions<TQueryFnData, Error, TData, TQueryKey>,
): UseQueryResult<TData, Error> {
  const key = JSON.stringify(filters);
  const [anchor, setAnchor] = useState<{ key: string; id: number } | null>(null);
  const beforeId = page > 1 && anchor?.key === key ? anchor.id : undefined;
  const query = useQuery(options(beforeId));
  // What page 1 shows now: its newest row, or none while it shows nothing of its own.
  const newest = page === 1 ? ((query.isPlaceholderData ? undefined : query.data?.data[0]?.id) ?? null) : undefined;
  useEffect(() => {
    if (newest !== undefined) setAnchor(newest === null ? null : { key, id: newest });
  }, [newest, key]);
  return query;
}
