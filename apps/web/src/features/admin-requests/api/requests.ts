import { adminClaimRequest, adminCompleteRequest, adminRejectRequest, adminReleaseRequest, adminRequests } from '@adena/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export interface QueueFilters {
  status?: 'pending' | 'completed' | 'rejected' | 'cancelled';
  type?: 'input' | 'output';
  gamesserver_id?: number;
  currency_type?: 1 | 2;
  page: number;
}

/** `live`: the operators' channel is up and refreshes the queue itself; polling is the fallback while it is down. */
export const adminRequestsQueryOptions = (filters: QueueFilters, live = false) =>
  queryOptions({
    queryKey: ['admin', 'requests', filters],
    queryFn: () => request(adminRequests, { query: { ...filters, per_page: 20 } }),
    placeholderData: keepPreviousData,
    // Operators work a shift from this page: new requests show up without a reload.
    refetchInterval: live ? false : 5_000,
    staleTime: 0,
  });

export const useAdminRequests = (filters: QueueFilters, live = false) => useQuery(adminRequestsQueryOptions(filters, live));

export function useProcessRequest() {
  const qc = useQueryClient();
  const done = () => qc.invalidateQueries({ queryKey: ['admin', 'requests'] });
  return {
    complete: useMutation({ mutationFn: (id: number) => request(adminCompleteRequest, { params: { id }, body: {} }), onSettled: done }),
    reject: useMutation({
      mutationFn: (v: { id: number; reason: string }) => request(adminRejectRequest, { params: { id: v.id }, body: { reason: v.reason } }),
      onSettled: done,
    }),
    claim: useMutation({ mutationFn: (id: number) => request(adminClaimRequest, { params: { id }, body: {} }), onSettled: done }),
    release: useMutation({ mutationFn: (id: number) => request(adminReleaseRequest, { params: { id }, body: {} }), onSettled: done }),
  };
}
