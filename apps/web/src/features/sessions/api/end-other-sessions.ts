import { sessionsEndOthers } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { sessionsQueryOptions } from './list-sessions';

/** POST /api/sessions/end_others: every session but this one ends. */
export function useEndOtherSessions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => request(sessionsEndOthers, { body: {} }),
    onSettled: () => qc.invalidateQueries({ queryKey: sessionsQueryOptions().queryKey }),
  });
}
