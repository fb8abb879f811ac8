import { login, phoneLogin } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { request } from '../../../lib/api-client';
import { settleSignIn } from './second-step';

/** The body each sign-in form validates with before sending. */
export const loginBodySchema = { email: login.body, phone: phoneLogin.body } as const;

type EmailBody = z.output<typeof login.body>;
type PhoneBody = z.output<typeof phoneLogin.body>;

/** login (by email) or phone_login; the answer starts the session. */
export const signIn = (body: EmailBody | PhoneBody) =>
  'email' in body ? request(login, { body, token: null }) : request(phoneLogin, { body, token: null });

export function useLogin() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: signIn, onSuccess: (res) => void settleSignIn(qc, res) });
}
