import { HISTORY_PAGE_SIZE, routes } from '@adena/contract/lite';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { request } from './api-client';
import { walletsQueryOptions } from './wallets';

/** Every page of the history, for invalidation after a request changes. */
export const allHistoryKey = ['history'] as const;

export const historyQueryOptions = (page: number, gameServerId: number | null) =>
  queryOptions({
    queryKey: [...allHistoryKey, { page, gameServerId }],
    queryFn: () =>
      request(routes.getUserInputOutputBalance, { query: { page, per_page: HISTORY_PAGE_SIZE, gamesserver_id: gameServerId ?? undefined } }),
    // Another page of the same server's history keeps the last one on screen while it loads; another server's
    // does not: the last server's requests, their «Отменить» live, would read as the chosen server's.
    placeholderData: (previous, previousQuery) => {
      const before = previousQuery?.queryKey[1] as { page: number; gameServerId: number | null } | undefined;
      return before && before.gameServerId === gameServerId ? previous : undefined;
    },
  });

/** Reading the history reads the operators' decisions: the server clears the wallets' new_message, and so does the cache. */
export function useHistory(page: number, gameServerId: number | null) {
  const qc = useQueryClient();
  const query = useQuery(historyQueryOptions(page, gameServerId));
  const readAt = query.isPlaceholderData ? 0 : query.dataUpdatedAt;
  useEffect(() => {
    if (!readAt) return;
    qc.setQueryData(walletsQueryOptions().queryKey, (ws) =>
      ws?.map((w) => (w.new_message && (gameServerId === null || w.gamesserver_id === gameServerId) ? { ...w, new_message: false } : w)),
    );
  }, [readAt, gameServerId, qc]);
  return query;
}

/**
 * Cancels a pending request; a withdrawal's held amount comes back to the wallet. The history and the
 * wallets are read again whatever the answer: a refusal (409 «Заявка уже отменена» / «уже обработана», a
 * 404) means the request changed since the list was read, and it must not stay «В обработке» with «Отменить».
 */
export function useCancelRequest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request(routes.deleteRequest, { body: { id } }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: allHistoryKey });
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
    },
  });
}

/** Hides a finished entry from the player's own history. */
export function useHideRequest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request(routes.deleteBalanceUser, { params: { id } }),
    // Refused too (already removed from another device, a 404): the list then shows what is there.
    onSettled: () => qc.invalidateQueries({ queryKey: allHistoryKey }),
  });
}
