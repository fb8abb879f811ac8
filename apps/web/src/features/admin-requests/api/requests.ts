import { adminClaimRequest, adminCompleteRequest, adminRejectRequest, adminReleaseRequest, adminRequests } from '@adena/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { request } from '../../../lib/api-client';

export interface QueueFilters {
  status?: 'pending' | 'completed' | 'rejected' | 'cancelled';
  type?: 'input' | 'output';
  gamesserver_id?: number;
  currency_type?: 1 | 2;
  page: number;
}

/** Requests on one page of the queue. */
export const PAGE_SIZE = 20;

/** `live`: the operators' channel is up and refreshes the queue itself; polling is the fallback while it is down. */
export const adminRequestsQueryOptions = (filters: QueueFilters, live = false) =>
  queryOptions({
    queryKey: ['admin', 'requests', filters],
    queryFn: () => request(adminRequests, { query: { ...filters, per_page: PAGE_SIZE } }),
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

/** How often an open queue renews the operator's own claims: well inside CLAIM_TIMEOUT_MIN (15 by default). */
export const CLAIM_RENEW_MS = 4 * 60_000;

/**
 * Keeps the caller's claim of a pending request alive while its card is on screen: PRODUCT.md section
 * 12 lets a claim lapse only without activity, and an operator handing adena over in game may take
 * longer than the timeout. The holder's claim renews it; a failed renewal waits for the next turn.
 */
export function useClaimRenewal(id: number, active: boolean) {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      request(adminClaimRequest, { params: { id }, body: {} }).catch(() => {});
    }, CLAIM_RENEW_MS);
    return () => clearInterval(timer);
  }, [id, active]);
}
