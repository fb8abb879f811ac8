import { sessionsList } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

/** GET /api/sessions: the player's signed-in devices, the current one marked. */
export const sessionsQueryOptions = () => queryOptions({ queryKey: ['sessions'], queryFn: () => request(sessionsList), staleTime: 0 });
export const useSessions = () => useQuery(sessionsQueryOptions());
