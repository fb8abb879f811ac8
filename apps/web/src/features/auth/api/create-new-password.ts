import { emailCreateNewPassword, phoneCreateNewPassword } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { request } from '../../../lib/api-client';
import { settleSignIn } from './second-step';

/** The body the new-password form validates with (the same for both methods). */
export const createNewPasswordBodySchema = emailCreateNewPassword.body;

export interface CreateNewPasswordInput {
  method: 'email' | 'phone';
  body: z.output<typeof emailCreateNewPassword.body>;
  /** The new_password_token from the code check: the bearer of this call. */
  newPasswordToken: string;
}

/** email_create_new_password or phone_…: sets the password and starts the session. */
export const createNewPassword = ({ method, body, newPasswordToken }: CreateNewPasswordInput) =>
  request(method === 'email' ? emailCreateNewPassword : phoneCreateNewPassword, { body, token: newPasswordToken });

export function useCreateNewPassword() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: createNewPassword, onSuccess: (res, input) => void settleSignIn(qc, res, input.method) });
}
