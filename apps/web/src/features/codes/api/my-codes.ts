import type { CodeStatus, myCodes } from '@adena/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { ref } from './ref';

const call = ref<typeof myCodes>('GET', '/api/my_codes');

/** Every page of all my codes, for invalidation when a code changes. */
export const allMyCodesKey = ['codes', 'mine'] as const;

export const myCodesQueryOptions = (page: number, gameServerId: number, status: CodeStatus | null) =>
  queryOptions({
    queryKey: [...allMyCodesKey, { page, gameServerId, status }],
    // The list shows the codes: with TOTP on, the server asks for the code (then not again for 10 minutes).
    // Only opening the list or another page of it asks; a refetch of a page already shown (a buyer
    // activated a code, the tab came back into focus) never pops the prompt up by itself, over whatever
    // the player is doing: it fails quietly and the page keeps what it showed.
    queryFn: ({ signal, client, queryKey }) => {
      const read = (twoFactorCode?: string) => request(call, { query: { page, gamesserver_id: gameServerId, status: status ?? undefined }, signal, twoFactorCode });
      return client.getQueryData(queryKey) === undefined ? withStepUp(read) : read();
    },
    placeholderData: keepPreviousData,
  });

export const useMyCodes = (page: number, gameServerId: number, status: CodeStatus | null) => useQuery(myCodesQueryOptions(page, gameServerId, status));
