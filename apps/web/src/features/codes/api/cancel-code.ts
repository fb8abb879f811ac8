import type { cancelCode, Code } from '@adena/contract';
import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import { ApiError, request } from '../../../lib/api-client';
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
 * SPEC.md section 4: an error carrying a status (the 409 of a code a buyer activated meanwhile)
 * overwrites the code's status, as the code_status event does, so the list stops offering «Отменить».
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
    onError: (err, code, account) => {
      if (!sameAccount(account)) return;
      const status = err instanceof ApiError ? err.body.status : undefined;
      if (status !== 'active' && status !== 'activated' && status !== 'cancelled') return;
      updateAuthPriceData(qc, code.gamesserver_id, (d) => withCodeStatus(d, code.id, status));
      void qc.invalidateQueries({ queryKey: priceDataQueryOptions(code.gamesserver_id, true).queryKey });
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
    },
  });
}

/**
 * Where a code stands in what the page holds: `closed` when any cached list shows it activated or cancelled
 * (a status never goes back to active), `listed` when the server's price data lists it open, else `unlisted`
 * (removed by del_sert, or a code only «Все мои коды» shows).
 */
export function codeStanding(qc: QueryClient, gameServerId: number, codeId: number): 'closed' | 'listed' | 'unlisted' {
  const data = qc.getQueryData(priceDataQueryOptions(gameServerId, true).queryKey);
  const listed = data && [...data.kods, ...data.svoy_variant_kods].find((c) => c.id === codeId);
  const pages = qc.getQueriesData<{ data: Code[] }>({ queryKey: allMyCodesKey });
  const closed = (c: Code | undefined) => c !== undefined && c.status !== 'active';
  if (closed(listed) || pages.some(([, page]) => closed(page?.data.find((c) => c.id === codeId)))) return 'closed';
  return listed ? 'listed' : 'unlisted';
}

/** codeStanding, kept current as the cache changes (a call's answer, a realtime event, a read). */
export function useCodeStanding(code: { gameServerId: number; codeId: number } | null) {
  const qc = useQueryClient();
  const gameServerId = code?.gameServerId;
  const codeId = code?.codeId;
  const subscribe = useCallback((onChange: () => void) => qc.getQueryCache().subscribe(onChange), [qc]);
  return useSyncExternalStore(subscribe, () => (gameServerId === undefined || codeId === undefined ? 'unlisted' : codeStanding(qc, gameServerId, codeId)));
}
