import { passkeyDelete } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { passkeysQueryOptions } from './passkeys-list';

export function usePasskeyDelete() {
  const qc = useQueryClient();
  return useMutation({
    // With TOTP on, removing a passkey asks for the code (the shared step-up prompt).
    mutationFn: (id: number) => withStepUp((twoFactorCode) => request(passkeyDelete, { params: { id }, twoFactorCode })),
    // Read again whatever the answer: a key already gone (404) is taken off the list, a lost answer may have removed it.
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysQueryOptions().queryKey }),
  });
}
