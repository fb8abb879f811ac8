import type { deletePricekod } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { priceDataQueryOptions } from './price-data';
import { allMyCodesKey } from './my-codes';
import { ref } from './ref';

const call = ref<typeof deletePricekod>('DELETE', '/api/pricekods/:id');

/**
 * Deletes a variant: its unactivated codes are cancelled and their summa refunded. The form's
 * Idempotency-Key lets a retry after a lost answer learn what was refunded instead of 404.
 */
export function useDeletePricekod() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (p: { id: number; gamesserver_id: number; idempotencyKey: string }) => request(call, { params: { id: p.id }, idempotencyKey: p.idempotencyKey }),
    onMutate: callAccount,
    onSuccess: (_r, p, account) => {
      // Signed out (or another account in) while it ran: the variant was the last account's.
      if (!sameAccount(account)) return;
      qc.setQueryData(priceDataQueryOptions(p.gamesserver_id, true).queryKey, (d) =>
        d ? { ...d, pricekods: d.pricekods.filter((x) => x.id !== p.id), svoy_variant_kods: d.svoy_variant_kods.filter((c) => c.pricekod_id !== p.id) } : d,
      );
      void qc.invalidateQueries({ queryKey: priceDataQueryOptions(p.gamesserver_id, true).queryKey });
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      // «Все мои коды» lists this code too (its status, a new or cancelled one): every page of it is read again.
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
    },
  });
}
