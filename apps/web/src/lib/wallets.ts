import { routes, type Wallet } from '@adena/contract/lite';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from './api-client';
import { recallWhileOffline, remember } from './last-known';
import { useUser } from './session';

export const walletsQueryOptions = () =>
  queryOptions({
    queryKey: ['wallets'],
    queryFn: async () => remember('wallets', await request(routes.wallets)),
    placeholderData: () => recallWhileOffline<Wallet[]>('wallets'),
  });

export function useWallets() {
  const { isSignedIn } = useUser();
  return useQuery({ ...walletsQueryOptions(), enabled: isSignedIn });
}

export function useWallet(gamesserverId: number | null): Wallet | undefined {
  const { data } = useWallets();
  return data?.find((w) => w.gamesserver_id === gamesserverId);
}

export function useSaveNick() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { gamesserver_id: number; nick: string }) => request(routes.saveNick, { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey }),
  });
}
