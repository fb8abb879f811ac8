import { CURRENCY_WORDS, currencyWord } from './amount';

/**
 * What the player is told of an operator's decision, in the snackbar and by the Telegram bot (which
 * names the game server first). A deposit is "на" an amount (accusative: на 1 адену), a withdrawal
 * "of" one (genitive: вывод 1 адены); an amount shown in shorthand (1,5кк) is "of millions": аден.
 */
export function decisionText(
  d: { type: 'input' | 'output'; status: string; amount: number; currency_type: 1 | 2; comment: string | null },
  format: (n: number) => string,
  server?: string,
): string {
  const shown = format(d.amount);
  const grammaticalCase = d.type === 'input' ? 'acc' : 'gen';
  const word = /\d$/.test(shown) ? currencyWord(d.amount, d.currency_type, grammaticalCase) : CURRENCY_WORDS[d.currency_type][grammaticalCase][2];
  const what = `${shown} ${word}`;
  const text =
    d.status === 'completed'
      ? d.type === 'input'
        ? `пополнение на ${what} зачислено`
        : `вывод ${what} выполнен`
      : `${d.type === 'input' ? `пополнение на ${what} отклонено` : `вывод ${what} отклонён`}${d.comment?.trim() ? `: ${d.comment.trim()}` : ''}`;
  return server ? `${server}: ${text}` : text.charAt(0).toUpperCase() + text.slice(1);
}
