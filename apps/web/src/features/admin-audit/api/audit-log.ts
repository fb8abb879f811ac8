import { adminAuditLog } from '@adena/contract';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { useAnchoredPage } from '../../../lib/anchored-page';
import { request } from '../../../lib/api-client';

export interface AuditFilters {
  admin_id?: number;
  entity_type?: string;
  entity_id?: string;
  action?: string;
  page: number;
}
export const AUDIT_PAGE_SIZE = 25;

/** `beforeId`: only entries with id <= it (the list as page 1 showed it); page 1 itself is read without. */
export const adminAuditLogQueryOptions = (f: AuditFilters, beforeId?: number) =>
  queryOptions({
    queryKey: ['admin', 'audit_log', { ...f, before_id: beforeId }],
    queryFn: () => request(adminAuditLog, { query: { ...f, before_id: beforeId, per_page: AUDIT_PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** A page of the log; pages 2+ under the newest entry page 1 of the same filters showed (lib/anchored-page). */
export const useAdminAuditLog = (f: AuditFilters) =>
  useAnchoredPage(f.page, [f.admin_id, f.entity_type, f.entity_id, f.action], (beforeId) => adminAuditLogQueryOptions(f, beforeId));
