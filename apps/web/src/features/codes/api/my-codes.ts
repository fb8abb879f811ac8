import type { CodeStatus, myCodes } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { ref } from './ref';

const call = ref<typeof myCodes>('GET', '/api/my_codes');

/** Every page of all my codes, for invalidation when a code changes. */
export const allMyCodesKey = ['codes', 'mine'] as const;

const read = (page: number, gameServerId: number, status: CodeStatus | null, signal?: AbortSignal) => (twoFactorCode?: string) =>
  request(call, { query: { page, gamesserver_id: gameServerId, status: status ?? undefined }, signal, twoFactorCode });

export const myCodesQueryOptions = (page: number, gameServerId: number, status: CodeStatus | null) =>
  queryOptions({
    queryKey: [...allMyCodesKey, { page, gameServerId, status }],
    // The list shows the codes: with TOTP on, the server asks for the code (then not again for 10 minutes).
    // Only opening the list or another page of it asks; a refetch of a page already shown (a buyer
    // activated a code, the tab came back into focus) never pops the prompt up by itself, over whatever
    // the player is doing: it fails, the page keeps what it showed and says so, with «Ввести код» (useMyCodesWithCode).
    queryFn: ({ signal, client, queryKey }) => {
      const run = read(page, gameServerId, status, signal);
      return client.getQueryData(queryKey) === undefined ? withStepUp(run) : run();
    },
    // Another page of the same filter keeps the last one on screen while it loads; another status's (or server's)
    // does not: «Все»'s active codes, their «Отменить» and copy live, would stay under «Отменённые» until it came.
    placeholderData: (previous, previousQuery) => {
      const before = previousQuery?.queryKey[2] as { page: number; gameServerId: number; status: CodeStatus | null } | undefined;
      return before && before.gameServerId === gameServerId && before.status === status ? previous : undefined;
    },
  });

export const useMyCodes = (page: number, gameServerId: number, status: CodeStatus | null) => useQuery(myCodesQueryOptions(page, gameServerId, status));

/**
 * A page read again with the second factor, when its quiet re-read was refused (the 10-minute step-up window
 * over): the player's «Ввести код» opens the prompt; the answer replaces what that page showed. The page is the
 * mutation's variables, fixed at the press: a chip or page changed while the code was asked for must not receive it.
 */
export function useMyCodesWithCode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (p: { page: number; gameServerId: number; status: CodeStatus | null }) => withStepUp(read(p.page, p.gameServerId, p.status)),
    onSuccess: (data, p) => qc.setQueryData(myCodesQueryOptions(p.page, p.gameServerId, p.status).queryKey, data),
  });
}
