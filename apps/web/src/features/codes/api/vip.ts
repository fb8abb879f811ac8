import type { vip } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount, userQueryOptions } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { allPriceDataKey } from './price-data';
import { ref } from './ref';

const call = ref<typeof vip>('POST', '/api/vip/');

/** Buys VIP months with coins; the lower code fee applies at once, so prices are read again. */
export function useBuyVip() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ idempotencyKey, ...body }: { months: number; gamesserver_id?: number; price?: number; days?: number; idempotencyKey: string }) =>
      request(call, { body, idempotencyKey }),
    onMutate: callAccount,
    onSuccess: (r, _v, account) => {
      // Signed out (or another account in) while it ran: the answer's user is the last account, not who is signed in.
      if (!sameAccount(account)) return;
      qc.setQueryData(userQueryOptions().queryKey, r.success);
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: allPriceDataKey });
    },
  });
}
