import { twoFactorRecoveryCodes } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const twoFactorRecoveryCodesBody = twoFactorRecoveryCodes.body;

/** 2fa/recovery_codes: a current code or a recovery code replaces the recovery codes; the answer shows the new ones, once. */
export function useNewRecoveryCodes() {
  return useMutation({ mutationFn: (code: string) => request(twoFactorRecoveryCodes, { body: { code } }) });
}
