import { twoFactorDisable } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { userQueryOptions } from '../../../lib/session';

export const twoFactorDisableBody = twoFactorDisable.body;

/** 2fa/disable: a current code or a recovery code turns TOTP off. */
export function useTwoFactorDisable() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => request(twoFactorDisable, { body: { code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: userQueryOptions().queryKey }),
  });
}
