import type { AdminRequest } from '@adena/contract';
import { minutesText } from '../../../hooks/use-minutes-since';
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
    : `Вы передали персонажу ${r.nick} на ${r.gamesserver} ${amount}: удержанная сумма спишется.`;
}

/**
 * What «Отклонить заявку №N» is about, named as the complete dialog names it: the live queue re-sorts under the
 * pointer, so the operator sees which request (its type, amount, character, server and player) they reject.
 */
export function rejectQuestion(r: Pick<AdminRequest, 'type' | 'amount' | 'currency_type' | 'nick' | 'gamesserver' | 'user'>) {
  const player = `${r.user.name || 'Без имени'} (${r.user.email ?? r.user.phone ?? `id ${r.user.id}`})`;
  return r.type === 'input'
    ? `Пополнение на ${amountText(r.amount, r.currency_type, NBSP, 'acc')} от персонажа ${r.nick} на ${r.gamesserver}, игрок ${player}.`
    : `Вывод ${amountText(r.amount, r.currency_type, NBSP, 'gen')} персонажу ${r.nick} на ${r.gamesserver}, игрок ${player}.`;
}

/**
 * The order the server lists the queue in (requests.repository `queue`): pending ones VIP withdrawals first,
 * then the oldest; decided ones the newest first; with every status, the pending ones come first.
 */
export function queueOrderText(status: QueueFilters['status']) {
  if (status === 'pending') return 'Сначала выводы VIP, затем по времени создания.';
  if (status) return 'Сначала новые.';
  return 'Сначала ожидающие (выводы VIP, затем по времени создания), потом обработанные — новые выше.';
}

const clock = new Intl.DateTimeFormat('ru-RU', { timeStyle: 'short' });
const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });

/**
 * Who decided a request and when, for its card once it has left the pending ones («Статус: Все»): the card's own
 * time is when it was created. The deciding operator is named (`processed_by_name`), or «оператор №N» when the
 * account has no name. A cancelled one has no operator: its player cancelled it.
 */
export function decidedText(r: Pick<AdminRequest, 'status' | 'processed_at' | 'processed_by' | 'processed_by_name'>, meId: number) {
  if (r.status === 'pending' || !r.processed_at) return null;
  const at = dateTime.format(new Date(r.processed_at));
  if (r.status === 'cancelled') return `Отменена игроком ${at}`;
  const id = r.processed_by;
  if (id === null) return `Решена ${at}`;
  if (id === meId) return `Решена ${at} · вами`;
  return `Решена ${at} · оператор ${r.processed_by_name || `№${id}`}`;
}

/**
 * Under another operator's standing claim: when it lapses (the server's `claim_lapses_at`,
 * CLAIM_TIMEOUT_MIN after it was taken or renewed) anyone may take the request over. The holder's
 * open admin area renews it a third into its timeout (useClaimKeeper), so its age says whether they are still at work.
 */
export function claimLapseText(lapsesAt: string | null, claimAgeMin: number | null) {
  const when = lapsesAt ? ` с ${clock.format(new Date(lapsesAt))}` : ' позже';
  const age = claimAgeMin === null ? '' : claimAgeMin < 1 ? ' Взята или продлена только что.' : ` Взята или продлена ${minutesText(claimAgeMin)} назад.`;
  return `Взять себе можно${when}, если захват не продлят.${age}`;
}
