import { adminDashboard } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const adminDashboardQueryOptions = () =>
  queryOptions({
    queryKey: ['admin', 'dashboard'],
    queryFn: () => request(adminDashboard),
    // Beside the queue, which refreshes as often.
    refetchInterval: 5_000,
    staleTime: 0,
  });

export const useAdminDashboard = () => useQuery(adminDashboardQueryOptions());
