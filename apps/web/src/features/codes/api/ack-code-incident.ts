import type { ackCodeIncident } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount } from '../../../lib/session';
import { codeIncidentsQueryOptions } from './code-incidents';
import { errorUserCodeQueryOptions } from './get-error-user-code';
import { ref } from './ref';

const call = ref<typeof ackCodeIncident>('POST', '/api/code_incidents/:id/ack');

export function useAckCodeIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request(call, { params: { id } }),
    onMutate: callAccount,
    onSuccess: (_r, id, account) => {
      // Signed out (or another account in) while it ran: the incident and its count were the last account's.
      if (!sameAccount(account)) return;
      const now = new Date().toISOString();
      qc.setQueryData(codeIncidentsQueryOptions().queryKey, (list) => list?.map((i) => (i.id === id ? { ...i, acknowledged_at: now } : i)));
      qc.setQueryData(errorUserCodeQueryOptions().queryKey, (d) => (d ? { error_codes_count: Math.max(0, d.error_codes_count - 1) } : d));
      void qc.invalidateQueries({ queryKey: codeIncidentsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: errorUserCodeQueryOptions().queryKey });
    },
  });
}
