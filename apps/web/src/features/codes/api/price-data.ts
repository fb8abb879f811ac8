import type { authVariantyAdenyZaKod, AuthPriceData, PriceData, variantyAdenyZaKod } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { callAccount, sameAccount, useUser } from '../../../lib/session';
import { askStepUpCode, withStepUp } from '../../../lib/step-up';
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

/**
 * With TOTP on, the price data lists the open codes masked until the session steps up (README
 * "Second factors"): asks for the code, reads the price data again with it and keeps that answer.
 * The server then shows this session the codes whole for 10 minutes.
 */
export function useRevealCodes(gameServerId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (): Promise<AuthPriceData | null> => {
      // A code given since the list was read (a new code issued, a withdrawal) already opened this session.
      const now = await request(authenticated, { params: { id: gameServerId } });
      if (![...now.kods, ...now.svoy_variant_kods].some((c) => c.sert_masked)) return now;
      const first = await askStepUpCode('Чтобы показать тексты кодов, введите код из приложения-аутентификатора');
      if (first === null) return null;
      return withStepUp((twoFactorCode) => request(authenticated, { params: { id: gameServerId }, twoFactorCode: twoFactorCode ?? first.trim() }));
    },
    onMutate: callAccount,
    onSuccess: async (data, _v, account) => {
      // Signed out (or another account in) while it ran: the code texts are the last account's, not the tab's now.
      if (!data || !sameAccount(account)) return;
      const { queryKey } = priceDataQueryOptions(gameServerId, true);
      // A masked read already under way (a refetch on focus) must not land after this one.
      await qc.cancelQueries({ queryKey });
      if (sameAccount(account)) qc.setQueryData(queryKey, data);
    },
  });
}
