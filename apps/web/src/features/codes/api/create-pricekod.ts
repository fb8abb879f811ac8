import type { createPricekod } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { walletsQueryOptions } from '../../../lib/wallets';
import { priceDataQueryOptions } from './price-data';
import { ref } from './ref';

const call = ref<typeof createPricekod>('POST', '/api/pricekods/');

export interface PricekodInput {
  gamesserver_id: number;
  nominal: number;
  count: number;
}

/** Creates a user variant: issues `count` codes of the user's nominal and debits summa. */
export function useCreatePricekod() {
  const qc = useQueryClient();
  return useMutation({
    // Issuing codes: with TOTP on, the server asks for the code (the step-up prompt), under the same key.
    mutationFn: ({ idempotencyKey, ...body }: PricekodInput & { idempotencyKey: string }) =>
      withStepUp((twoFactorCode) => request(call, { body, idempotencyKey, twoFactorCode })),
    onSuccess: (_r, input) => {
      void qc.invalidateQueries({ queryKey: priceDataQueryOptions(input.gamesserver_id, true).queryKey });
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
    },
  });
}
