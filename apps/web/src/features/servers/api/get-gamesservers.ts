import { gamesservers } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const gamesserversQueryOptions = () =>
  queryOptions({ queryKey: ['gamesservers'], queryFn: () => request(gamesservers), staleTime: 60_000 });

export const useGamesservers = () => useQuery(gamesserversQueryOptions());
