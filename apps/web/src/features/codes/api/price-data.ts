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
export const priceDataQueryOptions = (gamesserverId: number, signedIn: boolean) =>
  queryOptions({
    queryKey: ['codes', 'price-data', gamesserverId, signedIn ? 'auth' : 'anon'] as const,
    queryFn: ({ signal }): Promise<AnyPriceData> =>
      request(signedIn ? authenticated : anonymous, { params: { id: gamesserverId }, signal, ...(signedIn ? {} : { token: null }) }),
  });

/** Every server's price data, both variants: what a resync invalidates. */
export const allPriceDataKey = ['codes', 'price-data'] as const;

export function usePriceData(gamesserverId: number | null) {
  const { isSignedIn, isPending } = useUser();
  return useQuery({ ...priceDataQueryOptions(gamesserverId ?? 0, isSignedIn), enabled: gamesserverId !== null && !isPending });
}
