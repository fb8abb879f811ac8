import { type ChangePasswordBody, changePassword } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, replacingToken, sameAccount, startSession } from '../../../lib/session';
import { sessionsQueryOptions } from './list-sessions';

export const changePasswordBodySchema = changePassword.body;

/** POST /api/change_password: this session goes on under the new token; every other one ends. */
export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordBody) => {
      const account = callAccount();
      // The new token stored within the call (replacingToken): a read that the old token's 401 answers waits for it.
      return replacingToken(async () => {
        const auth = await request(changePassword, { body });
        // Signed out (or another account in) while it ran: the new token must not sign the last account back in.
        if (sameAccount(account)) startSession(qc, auth);
        return auth;
      });
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: sessionsQueryOptions().queryKey }),
  });
}
