import { adminCreateGamesserver, adminGamesservers, adminLedgerTotals, adminUpdateGamesserver, type GamesserverInput } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const adminGamesserversQueryOptions = () =>
  queryOptions({ queryKey: ['admin', 'gamesservers'], queryFn: () => request(adminGamesservers), staleTime: 0 });

export const useAdminGamesservers = () => useQuery(adminGamesserversQueryOptions());

/**
 * What players hold on a server, per currency (the ledger's totals: wallets, withdrawals held, open
 * codes), read when an operator is about to hide it: hidden, its wallets leave the players' list and
 * no withdrawal can be filed there.
 */
export function useServerHoldings(serverId: number | null) {
  return useQuery({
    queryKey: ['admin', 'ledger', 'totals'],
    queryFn: () => request(adminLedgerTotals),
    enabled: serverId !== null,
    staleTime: 0,
    select: (t) => t.data.filter((r) => r.gamesserver_id === serverId),
  });
}

/** `onChanged` lets the route refresh what players see (the public server list) without this feature knowing it. */
export function useSaveGamesserver(onChanged?: () => void) {
  const qc = useQueryClient();
  const done = () => {
    void qc.invalidateQueries({ queryKey: adminGamesserversQueryOptions().queryKey });
    onChanged?.();
  };
  return {
    create: useMutation({ mutationFn: (body: GamesserverInput) => request(adminCreateGamesserver, { body }), onSuccess: done }),
    update: useMutation({
      mutationFn: (v: { id: number; body: Partial<GamesserverInput> }) => request(adminUpdateGamesserver, { params: { id: v.id }, body: v.body }),
      onSuccess: done,
      // A refusal may come of another operator's change (a fee or a nominal judged against theirs): the list is
      // read again, and an open form says what changed (server-form-dialog).
      onError: () => void qc.invalidateQueries({ queryKey: adminGamesserversQueryOptions().queryKey }),
    }),
  };
}
