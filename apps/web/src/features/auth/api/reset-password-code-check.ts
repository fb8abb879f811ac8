import { emailResetPasswordCodeCheck, phoneResetPasswordCodeCheck } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export interface ResetCodeCheckInput {
  method: 'email' | 'phone';
  /** The flow's token from reset-password. */
  token: string;
  code: string;
}

/** email_reset_password_code_check or phone_…: the right code answers the new_password_token. */
export const resetPasswordCodeCheck = async ({ method, token, code }: ResetCodeCheckInput): Promise<string> =>
  (method === 'email'
    ? await request(emailResetPasswordCodeCheck, { body: { email_reset_password_token: token, code }, token: null })
    : await request(phoneResetPasswordCodeCheck, { body: { phone_reset_token: token, code }, token: null })
  ).new_password_token;

export const useResetPasswordCodeCheck = () => useMutation({ mutationFn: resetPasswordCodeCheck });
