import { passkeyLoginOptions, passkeyLoginVerify } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { settleSignIn } from './second-step';

/** passkeys/login/options → the browser's discoverable-credential prompt → passkeys/login/verify. */
async function signInWithPasskey() {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const options = await request(passkeyLoginOptions, { token: null });
  const response = await startAuthentication({ optionsJSON: options as never });
  return request(passkeyLoginVerify, { body: { response: response as never }, token: null });
}

export function usePasskeyLogin() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: signInWithPasskey, onSuccess: (auth) => void settleSignIn(qc, auth) });
}
