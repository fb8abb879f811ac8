import { sessionEnd } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { sessionsQueryOptions } from './list-sessions';

/** DELETE /api/sessions/{id}: ends one of the player's other sessions. */
export function useEndSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request(sessionEnd, { params: { id } }),
    onSettled: () => qc.invalidateQueries({ queryKey: sessionsQueryOptions().queryKey }),
  });
}
