import { codeVerificationEmailRegister, codeVerificationPhoneRegister } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { startSession } from '../../../lib/session';

export interface VerifyRegisterInput {
  method: 'email' | 'phone';
  /** The flow's token from register. */
  token: string;
  code: string;
}

/** code_verification_email_register or …_phone_register: the right code finishes the sign-up and starts the session. */
export const codeVerificationRegister = ({ method, token, code }: VerifyRegisterInput) =>
  method === 'email'
    ? request(codeVerificationEmailRegister, { body: { email_token: token, code }, token: null })
    : request(codeVerificationPhoneRegister, { body: { phone_token: token, code }, token: null });

export function useCodeVerificationRegister() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: codeVerificationRegister, onSuccess: (auth) => startSession(qc, auth) });
}
