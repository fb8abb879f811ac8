import { passkeyDelete } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { passkeysQueryOptions } from './passkeys-list';

export function usePasskeyDelete() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request(passkeyDelete, { params: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: passkeysQueryOptions().queryKey }),
  });
}
