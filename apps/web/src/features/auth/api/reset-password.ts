import { emailResetPasswordCodeDate, phoneResetPassword } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { request } from '../../../lib/api-client';

/** The body the reset form validates with before sending. */
export const resetPasswordBodySchema = { email: emailResetPasswordCodeDate.body, phone: phoneResetPassword.body } as const;

type EmailBody = z.output<typeof emailResetPasswordCodeDate.body>;
type PhoneBody = z.output<typeof phoneResetPassword.body>;

/** email_reset_password_code_date or phone_reset_password: sends a code to the address; answers the flow's token. */
export const resetPassword = async (body: EmailBody | PhoneBody): Promise<string | undefined> =>
  'email' in body
    ? (await request(emailResetPasswordCodeDate, { body, token: null })).email_reset_password_token
    : (await request(phoneResetPassword, { body, token: null })).phone_reset_token;

export const useResetPassword = () => useMutation({ mutationFn: resetPassword });
