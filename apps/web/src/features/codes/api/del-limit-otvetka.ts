import type { delLimitOtvetka } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount } from '../../../lib/session';
import { priceDataQueryOptions } from './price-data';
import { ref } from './ref';

const call = ref<typeof delLimitOtvetka>('POST', '/api/del_limit_otvetka/');

/** Clears the Telegram balance threshold (telegram_price). */
export function useDelLimitOtvetka() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { gamesserver_id: number }) => request(call, { body }),
    onMutate: callAccount,
    // Signed out (or another account in) while it ran: the threshold was the last account's.
    onSuccess: (_r, body, account) =>
      sameAccount(account) &&
      qc.setQueryData(priceDataQueryOptions(body.gamesserver_id, true).queryKey, (d) => (d && 'wallet' in d ? { ...d, telegram_price: null } : d)),
  });
}
