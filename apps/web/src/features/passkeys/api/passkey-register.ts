import { passkeyRegisterOptions, passkeyRegisterVerify } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { passkeysQueryOptions } from './passkeys-list';

/**
 * passkeys/register/options (with TOTP on, after the code in the step-up prompt; without it with the
 * current password, which an account signed in by Discord or Telegram leaves out) → the browser creates
 * a discoverable credential → passkeys/register/verify.
 */
async function registerPasskey({ name, password }: { name?: string; password?: string }) {
  const { startRegistration } = await import('@simplewebauthn/browser');
  const options = await withStepUp((twoFactorCode) => request(passkeyRegisterOptions, { body: { password }, twoFactorCode }));
  const response = await startRegistration({ optionsJSON: options as never });
  return request(passkeyRegisterVerify, { body: { response: response as never, name } });
}

export function usePasskeyRegister() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: registerPasskey, onSuccess: () => qc.invalidateQueries({ queryKey: passkeysQueryOptions().queryKey }) });
}
