import { CURRENCIES } from '../constants';

/** What the player is told of an operator's decision, in the snackbar and by the Telegram bot. */
export function decisionText(
  d: { type: 'input' | 'output'; status: string; amount: number; currency_type: 1 | 2; comment: string | null },
  format: (n: number) => string,
): string {
  const what = `${format(d.amount)} ${CURRENCIES[d.currency_type].name}`;
  if (d.status === 'completed') return d.type === 'input' ? `Пополнение на ${what} зачислено` : `Вывод ${what} выполнен`;
  const reason = d.comment?.trim() ? `: ${d.comment.trim()}` : '';
  return d.type === 'input' ? `Пополнение на ${what} отклонено${reason}` : `Вывод ${what} отклонён${reason}`;
}
