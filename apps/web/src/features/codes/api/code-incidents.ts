import type { codeIncidents } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useUser } from '../../../lib/session';
import { ref } from './ref';

const call = ref<typeof codeIncidents>('GET', '/api/code_incidents');

/** The user's code incidents: someone tried to activate one of their codes a second time. */
export const codeIncidentsQueryOptions = () =>
  queryOptions({ queryKey: ['codes', 'incidents'] as const, queryFn: ({ signal }) => request(call, { signal }) });

export function useCodeIncidents(enabled = true) {
  const { isSignedIn } = useUser();
  return useQuery({ ...codeIncidentsQueryOptions(), enabled: isSignedIn && enabled });
}
