import type { statement } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
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

export const statementQueryOptions = (page: number, f: StatementFilters) =>
  queryOptions({
    queryKey: [...allStatementKey, { page, ...f }],
    queryFn: ({ signal }) =>
      request(call, {
        query: { page, per_page: STATEMENT_PAGE_SIZE, gamesserver_id: f.gameServerId ?? undefined, currency_type: f.currency ?? undefined },
        signal,
      }),
    // The last page stays on screen while the next page of the same list loads; under other filters it does
    // not (another server's lines, their server label hidden, would read as the chosen server's).
    placeholderData: (previous, previousQuery) => {
      const before = previousQuery?.queryKey[1] as ({ page: number } & StatementFilters) | undefined;
      return before && before.gameServerId === f.gameServerId && before.currency === f.currency ? previous : undefined;
    },
  });

export const useStatement = (page: number, f: StatementFilters) => useQuery(statementQueryOptions(page, f));
