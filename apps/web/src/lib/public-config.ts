import { publicConfig } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from './api-client';

/** The brand and support contacts from the server's settings (GET /api/public_config); they change only with a restart. */
export const publicConfigQueryOptions = () =>
  queryOptions({ queryKey: ['public_config'], queryFn: () => request(publicConfig, { token: null }), staleTime: Number.POSITIVE_INFINITY });

export const usePublicConfig = () => useQuery(publicConfigQueryOptions());
