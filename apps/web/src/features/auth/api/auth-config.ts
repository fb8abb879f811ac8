import { authConfig } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

// No cache: each Discord authorize_url carries a fresh one-time state.
export const authConfigQueryOptions = () =>
  queryOptions({ queryKey: ['auth_config'], queryFn: () => request(authConfig, { token: null }), staleTime: 0, gcTime: 0 });

export const useAuthConfig = () => useQuery(authConfigQueryOptions());
