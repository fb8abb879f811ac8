import { adminLedgerAccountEntries, adminLedgerAudit, adminLedgerTotals } from '@adena/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const adminLedgerTotalsQueryOptions = () =>
  queryOptions({ queryKey: ['admin', 'ledger', 'totals'], queryFn: () => request(adminLedgerTotals), staleTime: 0 });
export const useAdminLedgerTotals = () => useQuery(adminLedgerTotalsQueryOptions());

/** The audit reads the whole ledger: only when an operator asks for it. */
export const adminLedgerAuditQueryOptions = () =>
  queryOptions({ queryKey: ['admin', 'ledger', 'audit'], queryFn: () => request(adminLedgerAudit), enabled: false, staleTime: 0, retry: false });
export const useAdminLedgerAudit = () => useQuery(adminLedgerAuditQueryOptions());

export const ENTRIES_PAGE_SIZE = 25;
export const adminAccountEntriesQueryOptions = (id: number, page: number) =>
  queryOptions({
    queryKey: ['admin', 'ledger', 'account', id, page],
    queryFn: () => request(adminLedgerAccountEntries, { params: { id }, query: { page, per_page: ENTRIES_PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
export const useAdminAccountEntries = (id: number, page: number) => useQuery(adminAccountEntriesQueryOptions(id, page));
