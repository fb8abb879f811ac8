import type { AdminRequest } from '@adena/contract';
import { amountText } from '../../../utils/plural';
import type { QueueFilters } from '../api/requests';

const NBSP = '\u00a0';

/**
 * What «Выполнить заявку №N?» asks the operator to confirm. The amount is what the cashier received
 * or the operator handed over: an object, so the accusative («получил 301 монету эйнхасад»).
 */
export function completeQuestion(r: Pick<AdminRequest, 'type' | 'amount' | 'currency_type' | 'nick' | 'cashier_nick' | 'gamesserver'>) {
  const amount = amountText(r.amount, r.currency_type, NBSP, 'acc');
  return r.type === 'input'
    ? `Кассир ${r.cashier_nick} получил ${amount} от ${r.nick} на ${r.gamesserver}: баланс игрока пополнится.`
    : `Вы передали игроку ${r.nick} на ${r.gamesserver} ${amount}: удержанная сумма спишется.`;
}

/**
 * The order the server lists the queue in (requests.repository `queue`): pending ones VIP first,
 * then the oldest; decided ones the newest first; with every status, the pending ones come first.
 */
export function queueOrderText(status: QueueFilters['status']) {
  if (status === 'pending') return 'Сначала VIP, затем по времени создания.';
  if (status) return 'Сначала новые.';
  return 'Сначала ожидающие (VIP, затем по времени создания), потом обработанные — новые выше.';
}

export function minutesText(min: number) {
  return min < 60 ? `${min} мин` : `${Math.floor(min / 60)} ч ${min % 60} мин`;
}

/**
 * «Снять чужую»: the server lets anyone release another operator's claim only once it is older than
 * CLAIM_TIMEOUT_MIN, a setting the client is not told; the holder's open queue renews it every few
 * minutes (useClaimRenewal), so its age says whether they are still at work.
 */
export function releaseOthersHint(claimAgeMin: number | null) {
  const age = claimAgeMin === null ? '' : claimAgeMin < 1 ? ' Взята или продлена только что.' : ` Взята или продлена ${minutesText(claimAgeMin)} назад.`;
  return `Можно снять, если оператор не работает с заявкой дольше срока из настройки сервера CLAIM_TIMEOUT_MIN; раньше сервер откажет.${age}`;
}
