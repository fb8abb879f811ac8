import { newTokenEmailRegister, newTokenPhoneRegister } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

/** new_token_email_register or …_phone_register: sends the code again; answers the flow's new token. */
export const newTokenRegister = async ({ method, token }: { method: 'email' | 'phone'; token: string }): Promise<string | undefined> =>
  method === 'email'
    ? (await request(newTokenEmailRegister, { body: { email_token: token }, token: null })).email_token
    : (await request(newTokenPhoneRegister, { body: { phone_token: token }, token: null })).phone_token;

export const useNewTokenRegister = () => useMutation({ mutationFn: newTokenRegister });
