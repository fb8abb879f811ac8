import { type Gamesserver, routes } from '@adena/contract/lite';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from './api-client';
import { recallWhileOffline, remember } from './last-known';

export const gamesserversQueryOptions = () =>
  queryOptions({
    queryKey: ['gamesservers'],
    queryFn: async () => remember('gamesservers', await request(routes.gamesservers)),
    staleTime: 60_000,
    // Offline: the last known list, so the wallet of the chosen server can still be shown.
    placeholderData: () => recallWhileOffline<Gamesserver[]>('gamesservers'),
  });

export const useGamesservers = () => useQuery(gamesserversQueryOptions());

/**
 * Why a saved server is not shown yet (features/servers' useSelectedServer): its list is being read, or could not
 * be, with what to say; null: none is saved, or the saved one is not in the list read.
 */
export type ServerWait = 'loading' | { failed: string } | null;
