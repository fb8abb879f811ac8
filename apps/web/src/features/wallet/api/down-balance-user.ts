import { routes } from '@adena/contract/lite';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { balanceEpoch } from '../../../lib/balance-epoch';
import { callAccount, sameAccount } from '../../../lib/session';
import { allHistoryKey } from '../../../lib/requests-history';
import { walletsQueryOptions } from '../../../lib/wallets';
import type { MoneyRequestInput } from './up-balance-user';

/** down_balance_user (adena) or down_balance_user_second_currency (coins): a withdrawal request; a refusal for want of balance carries low_cap. */
export const downBalanceUser = ({ gameServerId, currency, amount, idempotencyKey, twoFactorCode }: MoneyRequestInput & { twoFactorCode?: string }) =>
  currency === 1
    ? request(routes.downBalanceUser, { body: { gamesserver_id: gameServerId, amount, currency_type: 1 }, idempotencyKey, twoFactorCode })
    : request(routes.downBalanceUserSecondCurrency, { body: { gamesserver_id: gameServerId, amount, currency_type: 2 }, idempotencyKey, twoFactorCode });

/** Creates a withdrawal request, which holds its amount at once. */
export function useDownBalanceUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: downBalanceUser,
    onMutate: (input) => ({ epoch: balanceEpoch(input.gameServerId), ...callAccount() }),
    onSuccess: ({ success }, input, context) => {
      // A late answer after a sign-out (or another account's sign-in) is the last account's: B's wallet is not lowered by it.
      if (!sameAccount(context)) return;
      // SPEC.md section 4: the wallet's balance drops by enter_currency at once, unless the
      // realtime balance (already the lower one) arrived first.
      if (balanceEpoch(input.gameServerId) === context?.epoch) {
        qc.setQueryData(walletsQueryOptions().queryKey, (ws) =>
          ws?.map((w) =>
            w.gamesserver_id !== input.gameServerId
              ? w
              : input.currency === 1
                ? { ...w, balance: w.balance - success.enter_currency }
                : { ...w, balance_second: w.balance_second - success.enter_currency },
          ),
        );
      }
      void qc.invalidateQueries({ queryKey: allHistoryKey });
      // And the server's own figure after it: a retry answered from its first try (whose balance
      // event already came) would otherwise be subtracted twice on screen.
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
    },
  });
}
