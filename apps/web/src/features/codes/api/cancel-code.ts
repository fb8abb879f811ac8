import type { cancelCode } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { priceDataQueryOptions } from './price-data';
import { updateAuthPriceData, withCodeStatus, withoutCode } from './price-data-cache';
import { allMyCodesKey } from './my-codes';
import { ref } from './ref';

const call = ref<typeof cancelCode>('POST', '/api/codes/:id/cancel');

/**
 * The issuer cancels an unactivated code; its price comes back to the balance. The dialog's
 * Idempotency-Key lets a retry after a lost answer learn the refund instead of «already cancelled».
 */
export function useCancelCode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: { id: number; gamesserver_id: number; idempotencyKey: string }) =>
      request(call, { params: { id: code.id }, idempotencyKey: code.idempotencyKey }),
    onMutate: callAccount,
    onSuccess: (_r, code, account) => {
      // Signed out (or another account in) while it ran: the code was the last account's.
      if (!sameAccount(account)) return;
      updateAuthPriceData(qc, code.gamesserver_id, (d) => withoutCode(withCodeStatus(d, code.id, 'cancelled'), code.id));
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: priceDataQueryOptions(code.gamesserver_id, true).queryKey });
      // «Все мои коды» lists this code too (its status, a new or cancelled one): every page of it is read again.
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
    },
  });
}
