import { type CurrencyType, routes } from '@adena/contract/lite';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { allHistoryKey } from '../../../lib/requests-history';

/** A deposit or a withdrawal: the path names the currency, the body repeats it. */
export interface MoneyRequestInput {
  gameServerId: number;
  currency: CurrencyType;
  amount: number;
  /** One per dialog opening: a double click or a retry moves money once. */
  idempotencyKey: string;
}

/** up_balance_user (adena) or up_balance_user_second_currency (coins): a deposit request the operator completes. */
export const upBalanceUser = ({ gameServerId, currency, amount, idempotencyKey }: MoneyRequestInput) =>
  currency === 1
    ? request(routes.upBalanceUser, { body: { gamesserver_id: gameServerId, amount, currency_type: 1 }, idempotencyKey })
    : request(routes.upBalanceUserSecondCurrency, { body: { gamesserver_id: gameServerId, amount, currency_type: 2 }, idempotencyKey });

/** Creates a deposit request; the balance changes only when an operator completes it. */
export function useUpBalanceUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: upBalanceUser,
    onSuccess: () => void qc.invalidateQueries({ queryKey: allHistoryKey }),
  });
}
