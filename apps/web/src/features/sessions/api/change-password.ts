import { type ChangePasswordBody, changePassword } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { startSession } from '../../../lib/session';
import { sessionsQueryOptions } from './list-sessions';

export const changePasswordBodySchema = changePassword.body;

/** POST /api/change_password: this session goes on under the new token; every other one ends. */
export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordBody) => request(changePassword, { body }),
    onSuccess: (auth) => {
      startSession(qc, auth);
      void qc.invalidateQueries({ queryKey: sessionsQueryOptions().queryKey });
    },
  });
}
