import { twoFactorEnable } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { userQueryOptions } from '../../../lib/session';

export const twoFactorEnableBody = twoFactorEnable.body;

/** 2fa/enable: the first code turns TOTP on; the answer holds the recovery codes, shown once. */
export function useTwoFactorEnable() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => request(twoFactorEnable, { body: { code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: userQueryOptions().queryKey }),
  });
}
