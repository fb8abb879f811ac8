import { passkeyRegisterOptions, passkeyRegisterVerify } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { passkeysQueryOptions } from './passkeys-list';

/** passkeys/register/options → the browser creates a discoverable credential → passkeys/register/verify. */
async function registerPasskey(name: string | undefined) {
  const { startRegistration } = await import('@simplewebauthn/browser');
  const options = await request(passkeyRegisterOptions);
  const response = await startRegistration({ optionsJSON: options as never });
  return request(passkeyRegisterVerify, { body: { response: response as never, name } });
}

export function usePasskeyRegister() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: registerPasskey, onSuccess: () => qc.invalidateQueries({ queryKey: passkeysQueryOptions().queryKey }) });
}
