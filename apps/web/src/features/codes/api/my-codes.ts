import type { CodeStatus, myCodes } from '@adena/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { ref } from './ref';

const call = ref<typeof myCodes>('GET', '/api/my_codes');

/** Every page of all my codes, for invalidation when a code changes. */
export const allMyCodesKey = ['codes', 'mine'] as const;

export const myCodesQueryOptions = (page: number, gameServerId: number, status: CodeStatus | null) =>
  queryOptions({
    queryKey: [...allMyCodesKey, { page, gameServerId, status }],
    queryFn: ({ signal }) => request(call, { query: { page, gamesserver_id: gameServerId, status: status ?? undefined }, signal }),
    placeholderData: keepPreviousData,
  });

export const useMyCodes = (page: number, gameServerId: number, status: CodeStatus | null) => useQuery(myCodesQueryOptions(page, gameServerId, status));
