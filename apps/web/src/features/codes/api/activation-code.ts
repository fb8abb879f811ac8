import type { activationCode } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { isAuthPriceData } from './price-data';
import { updateAuthPriceData } from './price-data-cache';
import { ref } from './ref';

const call = ref<typeof activationCode>('POST', '/api/activation_code/');

/** SPEC.md section 4: activation success sets the user code's status. */
export function useActivationCode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sert: string) => request(call, { body: { sert } }),
    onMutate: callAccount,
    onSuccess: ({ success }, _v, account) => {
      // Signed out (or another account in) while it ran: the activated code is the last account's.
      if (!sameAccount(account)) return;
      updateAuthPriceData(qc, success.gamesserver_id, (d) =>
        isAuthPriceData(d)
          ? {
              ...d,
              user_kod: {
                id: success.code_id,
                gamesserver_id: success.gamesserver_id,
                code_id: success.code_id,
                nominal: success.nominal,
                status: success.status,
                activated_at: new Date().toISOString(),
              },
            }
          : d,
      );
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
    },
  });
}
