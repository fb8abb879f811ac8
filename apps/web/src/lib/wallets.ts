import { routes, type Wallet } from '@adena/contract/lite';
import { queryOptions, useQuery } from '@tanstack/react-query';
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

export function useWallet(gameServerId: number | null): Wallet | undefined {
  const { data } = useWallets();
  return data?.find((w) => w.gamesserver_id === gameServerId);
}
