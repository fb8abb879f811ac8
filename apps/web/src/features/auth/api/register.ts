import { emailRegister, phoneRegister } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { request } from '../../../lib/api-client';

/** The body the sign-up form validates with before sending. */
export const registerBodySchema = { email: emailRegister.body, phone: phoneRegister.body } as const;

type EmailBody = z.output<typeof emailRegister.body>;
type PhoneBody = z.output<typeof phoneRegister.body>;

/** email_register or phone_register: sends a code to the address; answers the flow's token. */
export const register = async (body: EmailBody | PhoneBody): Promise<string> =>
  'email' in body
    ? (await request(emailRegister, { body, token: null })).email_token
    : (await request(phoneRegister, { body, token: null })).phone_token;

export const useRegister = () => useMutation({ mutationFn: register });
