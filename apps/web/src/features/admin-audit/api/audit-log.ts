import { adminAuditLog } from '@adena/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export interface AuditFilters {
  admin_id?: number;
  entity_type?: string;
  entity_id?: string;
  action?: string;
  page: number;
}
export const AUDIT_PAGE_SIZE = 25;

export const adminAuditLogQueryOptions = (f: AuditFilters) =>
  queryOptions({
    queryKey: ['admin', 'audit_log', f],
    queryFn: () => request(adminAuditLog, { query: { ...f, per_page: AUDIT_PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
export const useAdminAuditLog = (f: AuditFilters) => useQuery(adminAuditLogQueryOptions(f));
