import { adminDashboard } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

/** `live`: the operators' channel refreshes it; polling only while the channel is down. */
export const adminDashboardQueryOptions = (live = false) =>
  queryOptions({
    queryKey: ['admin', 'dashboard'],
    queryFn: () => request(adminDashboard),
    // Beside the queue, which refreshes as often. Live, the feed brings every change, but the 24-hour
    // medians slide with time: read again each minute. «Дольше всех ждёт» counts its minutes itself.
    refetchInterval: live ? 60_000 : 5_000,
    staleTime: 0,
  });

export const useAdminDashboard = (live = false) => useQuery(adminDashboardQueryOptions(live));
