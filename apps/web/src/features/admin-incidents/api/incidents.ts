import { adminCodeIncidents, adminIncidentResolutions, adminResolveIncident } from '@adena/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export interface IncidentFilters {
  state: 'open' | 'acknowledged' | 'all';
  gamesserver_id?: number;
  user_id?: number;
  page: number;
}
export const INCIDENTS_PAGE_SIZE = 20;

export const adminIncidentsQueryOptions = (f: IncidentFilters) =>
  queryOptions({
    queryKey: ['admin', 'code_incidents', f],
    queryFn: () => request(adminCodeIncidents, { query: { ...f, per_page: INCIDENTS_PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
export const useAdminIncidents = (f: IncidentFilters) => useQuery(adminIncidentsQueryOptions(f));

/** Operators' notes of the incidents on the page (kept by the admin module, beside the codes module's list). */
export const incidentResolutionsQueryOptions = (ids: number[]) =>
  queryOptions({
    queryKey: ['admin', 'incident_resolutions', ids],
    queryFn: () => request(adminIncidentResolutions, { query: { ids: ids.join(',') } }),
    enabled: ids.length > 0,
    staleTime: 0,
  });
export const useIncidentResolutions = (ids: number[]) => useQuery(incidentResolutionsQueryOptions(ids));

export function useResolveIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: number; note: string }) => request(adminResolveIncident, { params: { id: v.id }, body: { note: v.note } }),
    // Also after a refusal: a 409 means another operator closed it first, and their note replaces the button.
    onSettled: () => qc.invalidateQueries({ queryKey: ['admin', 'incident_resolutions'] }),
  });
}
