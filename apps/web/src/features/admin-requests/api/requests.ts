import { type AdminRequest, adminClaimRequest, adminCompleteRequest, adminRejectRequest, adminReleaseRequest, adminRequests } from '@adena/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ApiError, request } from '../../../lib/api-client';

export interface QueueFilters {
  status?: 'pending' | 'completed' | 'rejected' | 'cancelled';
  type?: 'input' | 'output';
  gamesserver_id?: number;
  currency_type?: 1 | 2;
  page: number;
}

/** Requests on one page of the queue. */
export const PAGE_SIZE = 20;

/**
 * `live`: the operators' channel is up and refreshes the queue itself; polling every 5 s is the fallback while it
 * is down. Live, it is still read each minute: an event lost while a server process's LISTEN connection reconnects
 * would otherwise leave the queue stale until the tab is refocused.
 */
export const adminRequestsQueryOptions = (filters: QueueFilters, live = false) =>
  queryOptions({
    queryKey: ['admin', 'requests', filters],
    queryFn: () => request(adminRequests, { query: { ...filters, per_page: PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    // Operators work a shift from this page: new requests show up without a reload.
    refetchInterval: live ? 60_000 : 5_000,
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

/** How often the admin area re-reads the operator's own claims. */
export const MY_CLAIMS_READ_MS = 60_000;
/** A renewal that failed (a blip, a 503) is tried again this soon, while the claim still stands. */
export const CLAIM_RETRY_MS = 30_000;

/** The operator's standing claims of pending requests, wherever they are in the queue (`claimed_by`, beyond PRODUCT.md). */
export const myClaimsQueryOptions = (me: number) =>
  queryOptions({
    queryKey: ['admin', 'requests', 'claims', me],
    queryFn: () => request(adminRequests, { query: { status: 'pending', claimed_by: me, page: 1, per_page: 100 } }),
    refetchInterval: MY_CLAIMS_READ_MS,
    staleTime: 0,
  });

/** A claim's timeout: the server's `claim_lapses_at − claimed_at`, a length of time (no clock is compared). */
export function claimTimeoutMs(r: Pick<AdminRequest, 'claimed_at' | 'claim_lapses_at'>): number | null {
  if (!r.claimed_at || !r.claim_lapses_at) return null;
  return Date.parse(r.claim_lapses_at) - Date.parse(r.claimed_at);
}

/**
 * Keeps the operator's claims alive while the admin area is open on any of its pages (PRODUCT.md section 12
 * lets a claim lapse only without activity; an operator handing adena over in game may take longer than the
 * timeout, and may be looking at the player's card meanwhile). A claim this keeper has not renewed yet (first
 * seen: after a reload, a claim taken a while ago) is renewed at once, then each a third of its timeout after
 * its last renewal, timed on this browser's clock alone: the server's times only give the timeout's length, so
 * a browser whose clock is off neither renews in a loop nor too late. The server lists standing claims only: one
 * that lapsed is not taken back silently (another operator may be on it); its card says so. Nor does a renewal
 * take it back: the server grants one to anybody once the claim has lapsed, and a renewal may come due after the
 * claim lapsed unseen (the laptop slept or the browser froze the hidden tab longer than the timeout, and paused
 * timers keep the time they had left; or every renewal failed through an outage that long). So before each try
 * the keeper measures, on this browser's clock, how long the claim has gone unconfirmed; near the timeout it
 * sends nothing and reads the list again instead, which renews the claim if it still stands or shows it lapsed.
 */
export function useClaimKeeper(me: number) {
  const qc = useQueryClient();
  // Each answered read counts (dataUpdatedAt), even one the same as the last: a claim whose timer was dropped and
  // that is still listed is renewed again.
  const { data, dataUpdatedAt } = useQuery(myClaimsQueryOptions(me));
  // When this tab last renewed each claim, by its own clock; and a timer per claim, set again after each try.
  const renewed = useRef(new Map<number, number>());
  // When each claim was last known to stand, by this tab's clock: when its last successful renewal was sent (the
  // server renewed it after that), or when the read that first listed it was answered.
  const confirmed = useRef(new Map<number, number>());
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());
  // Left (the admin area closed): a renewal answered afterwards sets no new timer.
  const left = useRef(false);
  useEffect(() => {
    if (!data) return;
    const listed = new Map(data.data.filter((r) => r.claimed_by?.id === me).map((r) => [r.id, claimTimeoutMs(r)] as const));
    for (const [id, timer] of timers.current) {
      if (listed.has(id)) continue;
      clearTimeout(timer);
      timers.current.delete(id);
      renewed.current.delete(id);
      confirmed.current.delete(id);
    }
    const schedule = (id: number, timeout: number, delay: number) => {
      if (left.current) return;
      clearTimeout(timers.current.get(id));
      timers.current.set(
        id,
        setTimeout(() => {
          // A tenth of the timeout to spare: the renewal must reach the server before the claim lapses.
          if (Date.now() - (confirmed.current.get(id) ?? Number.NEGATIVE_INFINITY) >= timeout - timeout / 10) {
            timers.current.delete(id);
            renewed.current.delete(id);
            confirmed.current.delete(id);
            // Still listed (it stands): renewed at once as first seen. Not listed: its card says it lapsed.
            void qc.invalidateQueries({ queryKey: ['admin', 'requests'] });
            return;
          }
          const sent = Date.now();
          // A renewal only: the server refuses it (409) once the claim has lapsed, rather than granting it anew.
          void request(adminClaimRequest, { params: { id }, body: { renew: true } }).then(
            () => {
              renewed.current.set(id, Date.now());
              confirmed.current.set(id, sent);
              schedule(id, timeout, timeout / 3);
              void qc.invalidateQueries({ queryKey: ['admin', 'requests'] });
            },
            // Not renewed: tried again soon, not a third of the timeout later (a refusal for good, the claim lapsed,
            // the request decided or taken over, drops it from the next read, which ends its timer; a 409 reads at
            // once, so the card says so now).
            (err: unknown) => {
              schedule(id, timeout, Math.min(CLAIM_RETRY_MS, timeout / 3));
              if (err instanceof ApiError && err.status === 409) void qc.invalidateQueries({ queryKey: ['admin', 'requests'] });
            },
          );
        }, delay),
      );
    };
    for (const [id, timeout] of listed) {
      if (timeout === null || timers.current.has(id)) continue;
      if (!confirmed.current.has(id)) confirmed.current.set(id, dataUpdatedAt);
      const last = renewed.current.get(id);
      schedule(id, timeout, last === undefined ? 0 : Math.max(0, last + timeout / 3 - Date.now()));
    }
  }, [data, dataUpdatedAt, me, qc]);
  useEffect(() => {
    left.current = false;
    return () => {
      left.current = true;
      for (const timer of timers.current.values()) clearTimeout(timer);
      timers.current.clear();
    };
  }, []);
}
