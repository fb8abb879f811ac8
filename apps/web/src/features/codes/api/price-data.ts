import type { authVariantyAdenyZaKod, AuthPriceData, PriceData, variantyAdenyZaKod } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useUser } from '../../../lib/session';
import { ref } from './ref';

const anonymous = ref<typeof variantyAdenyZaKod>('GET', '/api/varianty_adeny_za_kod/:id');
const authenticated = ref<typeof authVariantyAdenyZaKod>('GET', '/api/auth_varianty_adeny_za_kod/:id');

export type AnyPriceData = PriceData | AuthPriceData;
export const isAuthPriceData = (d: AnyPriceData | undefined): d is AuthPriceData => Boolean(d && 'wallet' in d);

/** SPEC.md section 6: the anonymous path without a token, the authenticated one with it. */
export const priceDataQueryOptions = (gameServerId: number, signedIn: boolean) =>
  queryOptions({
    queryKey: ['codes', 'price-data', gameServerId, signedIn ? 'auth' : 'anon'] as const,
    queryFn: ({ signal }): Promise<AnyPriceData> =>
      request(signedIn ? authenticated : anonymous, { params: { id: gameServerId }, signal, ...(signedIn ? {} : { token: null }) }),
  });

/** Every server's price data, both variants: what a resync invalidates. */
export const allPriceDataKey = ['codes', 'price-data'] as const;

export function usePriceData(gameServerId: number | null) {
  const { isSignedIn, isPending } = useUser();
  return useQuery({ ...priceDataQueryOptions(gameServerId ?? 0, isSignedIn), enabled: gameServerId !== null && !isPending });
}
