import type { addLimitOtvetka } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount } from '../../../lib/session';
import { priceDataQueryOptions } from './price-data';
import { ref } from './ref';

const call = ref<typeof addLimitOtvetka>('POST', '/api/add_limit_otvetka/');

/** Sets the balance threshold below which the user's Telegram chat is told; stored as telegram_price. */
export function useAddLimitOtvetka() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { gamesserver_id: number; telegram_price: number }) => request(call, { body }),
    onMutate: callAccount,
    // Signed out (or another account in) while it ran: the threshold is the last account's.
    onSuccess: (r, body, account) =>
      sameAccount(account) &&
      qc.setQueryData(priceDataQueryOptions(body.gamesserver_id, true).queryKey, (d) => (d && 'wallet' in d ? { ...d, telegram_price: r.success } : d)),
  });
}
