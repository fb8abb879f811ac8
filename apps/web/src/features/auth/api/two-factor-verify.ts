import { twoFactorVerify } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { settleSignIn } from './second-step';

/** The bodies the code step validates with. */
export const twoFactorVerifyBody = twoFactorVerify.body;

/** 2fa/verify: the pending sign-in's code (TOTP or recovery); the answer starts the session. */
export function useTwoFactorVerify() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { two_factor_token: string; code: string }) => request(twoFactorVerify, { body, token: null }),
    onSuccess: (auth) => void settleSignIn(qc, auth),
  });
}
