import { formatAmount } from './format-amount';

/** The ledger's transaction kinds in operators' words; an unknown kind shows as it is. */
const TRANSACTION_KINDS: Record<string, string> = {
  deposit: 'Пополнение',
  withdrawal_hold: 'Вывод: удержание',
  withdrawal_payout: 'Вывод: выплачено',
  withdrawal_cancel: 'Вывод отменён игроком',
  withdrawal_reject: 'Вывод отклонён',
  code_issue: 'Выпуск кода',
  code_cancel: 'Код отменён',
  code_cancel_admin: 'Код отменён оператором',
  code_activation: 'Активация кода',
  pricekod_create: 'Набор своего номинала',
  pricekod_edit_issue: 'Набор изменён: выпуск',
  pricekod_edit_refund: 'Набор изменён: возврат',
  pricekod_delete: 'Набор удалён',
  vip_purchase: 'Покупка VIP',
  test_funding: 'Тестовое пополнение',
};
export const transactionKindLabel = (kind: string) => TRANSACTION_KINDS[kind] ?? kind;

const REF_TYPES: Record<string, string> = { balance_request: 'заявка', code: 'код', pricekod: 'набор', user: 'пользователь' };
export const refTypeLabel = (type: string) => REF_TYPES[type] ?? type;

export const ACCOUNT_KINDS = { wallet: 'Кошелёк игрока', cash: 'Касса', payout: 'Удержано на вывод', escrow: 'Коды (депонент)', fees: 'Комиссии' } as const;

/**
 * A ledger account's key in words: `wallet:13:1` → «Кошелёк №13 · адена», `fees:1:1` → «Комиссии · Scryde x50 ·
 * адена» with the game server's name from `servers` (the operators' server list the route holds), «Комиссии,
 * сервер 1 · адена» while it is not known. A wallet's number is the wallet's own id, not its owner's (the key does
 * not name the owner; the account's page does); the others' is the game server's.
 */
export function accountKeyLabel(key: string, servers: ReadonlyArray<{ id: number; name: string }> = []): string {
  const [kind, id, currency] = key.split(':');
  const name = ACCOUNT_KINDS[kind as keyof typeof ACCOUNT_KINDS];
  if (!name || !id) return key;
  const what = currency === '1' ? 'адена' : currency === '2' ? 'монеты' : null;
  const server = servers.find((s) => String(s.id) === id)?.name;
  const where = kind === 'wallet' ? `Кошелёк №${id}` : server ? `${name} · ${server}` : `${name}, сервер ${id}`;
  return what ? `${where} · ${what}` : where;
}

/** A ledger amount with its sign: «+1 000», «−5 225 000» (a true minus, as the player's statement shows). */
export const signedAmount = (n: number) => (n > 0 ? `+${formatAmount(n)}` : n < 0 ? `\u2212${formatAmount(-n)}` : formatAmount(n));
