import { routes } from '@adena/contract/lite';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const gamesserversQueryOptions = () =>
  queryOptions({ queryKey: ['gamesservers'], queryFn: () => request(routes.gamesservers), staleTime: 60_000 });

export const useGamesservers = () => useQuery(gamesserversQueryOptions());
