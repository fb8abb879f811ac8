import type { showCode } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, request } from '../../../lib/api-client';
import { walletsQueryOptions } from '../../../lib/wallets';
import { balanceEpoch } from '../../../lib/balance-epoch';
import { callAccount, sameAccount } from '../../../lib/session';
import { codeEntry, updateAuthPriceData, withCode, withCodeStatus, withWalletBalance } from './price-data-cache';
import { isAuthPriceData, priceDataQueryOptions } from './price-data';
import { isPriceChange, refreshPrices } from './create-pricekod';
import { allMyCodesKey } from './my-codes';
import { ref } from './ref';

const call = ref<typeof showCode>('POST', '/api/show_code/');

export interface ShowCodeInput {
  gameServerId: number;
  walletId: number;
  nominal: number;
  /** The user variant the code is issued from, if any. */
  userVariantId?: number;
  /** The code this reveal is about, when it is already listed (its status follows an error's status). */
  codeId?: number;
  idempotencyKey: string;
  /** X-Two-Factor-Code, when the server asked for it (TOTP on). */
  twoFactorCode?: string;
  /** The price the player confirmed: the server refuses another one (409 with `price`) instead of charging it. */
  price?: number;
}

/**
 * Issues a code of a nominal and reveals its `sert`. SPEC.md section 4: the code gets its sert and
 * status, summa leaves the balance; an error carrying a status overwrites the code's status.
 */
export function useShowCode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ gameServerId, walletId, nominal, userVariantId, idempotencyKey, twoFactorCode, price }: ShowCodeInput) =>
      request(call, { body: { gamesserver_id: gameServerId, wallet_id: walletId, nominal, pricekod_id: userVariantId, price }, idempotencyKey, twoFactorCode }),
    onMutate: (input) => ({ epoch: balanceEpoch(input.gameServerId), ...callAccount() }),
    onSuccess: (r, input, context) => {
      // Signed out (or another account in) while it ran: the code's text is the last account's; the next one's
      // price data (maybe of the same server) must not list it.
      if (!sameAccount(context)) return;
      // The realtime `balance` event may have come first and already carries the lower balance.
      const deduct = balanceEpoch(input.gameServerId) === context?.epoch ? r.summa : 0;
      updateAuthPriceData(qc, input.gameServerId, (d) => {
        const withNew = withCode(
          d,
          codeEntry(d, { id: r.code_id, nominal: input.nominal, sert: r.sert, status: r.status, pricekod_id: input.userVariantId ?? null }),
        );
        return isAuthPriceData(withNew) ? withWalletBalance(withNew, Math.max(0, withNew.wallet.balance - deduct)) : withNew;
      });
      qc.setQueryData(walletsQueryOptions().queryKey, (ws) =>
        ws?.map((w) => (w.gamesserver_id === input.gameServerId ? { ...w, balance: Math.max(0, w.balance - deduct) } : w)),
      );
      // The realtime `balance` event may have come first: read the truth once more.
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: priceDataQueryOptions(input.gameServerId, true).queryKey });
      // «Все мои коды» lists this code too (its status, a new or cancelled one): every page of it is read again.
      void qc.invalidateQueries({ queryKey: allMyCodesKey });
    },
    onError: (err, input, context) => {
      if (!sameAccount(context)) return;
      // The fee changed since the page was read: the prices on it are stale.
      if (isPriceChange(err)) refreshPrices(qc, input.gameServerId);
      const status = err instanceof ApiError ? err.body.status : undefined;
      if (input.codeId !== undefined && (status === 'active' || status === 'activated' || status === 'cancelled')) {
        updateAuthPriceData(qc, input.gameServerId, (d) => withCodeStatus(d, input.codeId!, status));
      }
    },
  });
}
