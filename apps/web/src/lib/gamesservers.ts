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
