import type { updatePricekod } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { walletsQueryOptions } from '../../../lib/wallets';
import { isPriceChange, type PricekodInput, refreshPrices } from './create-pricekod';
import { priceDataQueryOptions } from './price-data';
import { allMyCodesKey } from './my-codes';
import { ref } from './ref';

const call = ref<typeof updatePricekod>('PUT', '/api/pricekods/:id');

/** Changes nominal or count of a variant's unactivated codes; the difference is charged or refunded. */
export function useUpdatePricekod() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, idempotencyKey, ...body }: PricekodInput & { id: number; idempotencyKey: string }) =>
      withStepUp((twoFactorCode) => request(call, { params: { id }, body, idempotencyKey, twoFactorCode })),
    onSuccess: (_r, input) => {
      void qc.invalidateQueries({ queryKey: priceDataQueryOptions(input.gamesserver_id, true).queryKey });
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      // «Все мои коды» lists this code too (its status, a new or cancelled one): every page of it is read again.
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
    },
    onError: (err, input) => {
      if (isPriceChange(err)) refreshPrices(qc, input.gamesserver_id);
    },
  });
}
