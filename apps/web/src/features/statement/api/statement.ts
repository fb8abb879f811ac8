import type { statement } from '@adena/contract';
import { queryOptions } from '@tanstack/react-query';
import { useAnchoredPage } from '../../../lib/anchored-page';
import { request } from '../../../lib/api-client';
import { ref } from './ref';

const call = ref<typeof statement>('GET', '/api/statement');

export const STATEMENT_PAGE_SIZE = 20;

/** Every page of the statement, for invalidation when a balance moves. */
export const allStatementKey = ['statement'] as const;

export interface StatementFilters {
  gameServerId: number | null;
  currency: 1 | 2 | null;
}

/** `beforeId`: only entries with id <= it (the statement as page 1 showed it); page 1 itself is read without. */
export const statementQueryOptions = (page: number, f: StatementFilters, beforeId?: number) =>
  queryOptions({
    queryKey: [...allStatementKey, { page, ...f, beforeId }],
    queryFn: ({ signal }) =>
      request(call, {
        query: {
          page,
          per_page: STATEMENT_PAGE_SIZE,
          gamesserver_id: f.gameServerId ?? undefined,
          currency_type: f.currency ?? undefined,
          before_id: beforeId,
        },
        signal,
      }),
    // The last page stays on screen while the next page of the same list loads; under other filters it does
    // not (another server's lines, their server label hidden, would read as the chosen server's).
    placeholderData: (previous, previousQuery) => {
      const before = previousQuery?.queryKey[1] as ({ page: number } & StatementFilters) | undefined;
      return before && before.gameServerId === f.gameServerId && before.currency === f.currency ? previous : undefined;
    },
  });

/** A page of the statement; pages 2+ under the newest entry page 1 of the same filters showed (lib/anchored-page). */
export const useStatement = (page: number, f: StatementFilters) =>
  useAnchoredPage(page, [f.gameServerId, f.currency], (beforeId) => statementQueryOptions(page, f, beforeId));
