import { type ChangePasswordBody, changePassword } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount, startSession } from '../../../lib/session';
import { sessionsQueryOptions } from './list-sessions';

export const changePasswordBodySchema = changePassword.body;

/** POST /api/change_password: this session goes on under the new token; every other one ends. */
export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordBody) => request(changePassword, { body }),
    onMutate: callAccount,
    onSuccess: (auth, _v, account) => {
      // Signed out (or another account in) while it ran: the new token must not sign the last account back in.
      if (!sameAccount(account)) return;
      startSession(qc, auth);
      void qc.invalidateQueries({ queryKey: sessionsQueryOptions().queryKey });
    },
  });
}
