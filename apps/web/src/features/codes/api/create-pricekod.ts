import type { createPricekod } from '@adena/contract';
import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, request } from '../../../lib/api-client';
import { gamesserversQueryOptions } from '../../../lib/gamesservers';
import { userQueryOptions } from '../../../lib/session';
import { withStepUp } from '../../../lib/step-up';
import { walletsQueryOptions } from '../../../lib/wallets';
import { priceDataQueryOptions } from './price-data';
import { allMyCodesKey } from './my-codes';
import { ref } from './ref';

const call = ref<typeof createPricekod>('POST', '/api/pricekods/');

export interface PricekodInput {
  gamesserver_id: number;
  nominal: number;
  count: number;
  /** One code's price the player was shown: the server refuses another one (409 with `price`) instead of charging it. */
  price?: number;
}

/** A 409 with `price`: the fee changed since the page was read, so the prices on it are stale. */
export const isPriceChange = (err: unknown): err is ApiError & { body: { price: number } } => err instanceof ApiError && typeof err.body.price === 'number';

/**
 * After a 409 with `price`: everything a price on the page is worked out from is read again, the
 * server's fees and the player's VIP as well as the price data. Re-reading the price data alone left a
 * batch dialog (its fee from the server list and `user.vip`) stating the old price and sending it again.
 */
export function refreshPrices(qc: QueryClient, gameServerId: number) {
  void qc.invalidateQueries({ queryKey: priceDataQueryOptions(gameServerId, true).queryKey });
  void qc.invalidateQueries({ queryKey: gamesserversQueryOptions().queryKey });
  void qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
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
      // «Все мои коды» lists this code too (its status, a new or cancelled one): every page of it is read again.
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
    },
    onError: (err, input) => {
      if (isPriceChange(err)) refreshPrices(qc, input.gamesserver_id);
    },
  });
}
