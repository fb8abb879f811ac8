import { adminAuditLog } from '@adena/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
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

/**
 * A page of the log. Later pages are read under the newest entry page 1 of the same filters showed (`before_id`),
 * so entries written meanwhile do not push the rows already seen onto the next page. Page 1 is read live and
 * renews the anchor; other filters have none until their page 1 is read (a page opened from the address
 * pages as before).
 */
export function useAdminAuditLog(f: AuditFilters) {
  const filters = JSON.stringify([f.admin_id, f.entity_type, f.entity_id, f.action]);
  const [anchor, setAnchor] = useState<{ filters: string; id: number } | null>(null);
  const beforeId = f.page > 1 && anchor?.filters === filters ? anchor.id : undefined;
  const query = useQuery(adminAuditLogQueryOptions(f, beforeId));
  // What page 1 shows now: its newest entry, or none while it shows nothing of its own.
  const newest = f.page === 1 ? ((query.isPlaceholderData ? undefined : query.data?.data[0]?.id) ?? null) : undefined;
  useEffect(() => {
    if (newest !== undefined) setAnchor(newest === null ? null : { filters, id: newest });
  }, [newest, filters]);
  return query;
}
