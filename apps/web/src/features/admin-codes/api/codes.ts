import { adminCancelCode, adminCodes } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

/** A code by its sert or its number. */
export type CodeLookup = { sert: string } | { id: number };

export const adminCodeQueryOptions = (lookup: CodeLookup | null) =>
  queryOptions({
    queryKey: ['admin', 'codes', lookup],
    queryFn: () => request(adminCodes, { query: lookup && 'id' in lookup ? { id: lookup.id } : { sert: lookup?.sert } }),
    enabled: lookup !== null,
    staleTime: 0,
    retry: false,
  });
export const useAdminCode = (lookup: CodeLookup | null) => useQuery(adminCodeQueryOptions(lookup));

export function useAdminCancelCode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: number; reason: string }) => request(adminCancelCode, { params: { id: v.id }, body: { reason: v.reason } }),
    // The code's story and any incident list that shows its status, refused too: a 409 («Код уже
    // активирован») or a 404 means the card shows a state the code no longer has.
    onSettled: () => qc.invalidateQueries({ queryKey: ['admin'], predicate: (q) => q.queryKey[1] === 'codes' || q.queryKey[1] === 'code_incidents' }),
  });
}
