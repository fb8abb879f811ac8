import type { Code, CodeStatus } from '@adena/contract';
import { errorMessage } from '@adena/contract/lite';
import { ApiError } from '../../../lib/api-client';
import { formatAmount, formatShort } from '../../../utils/format-amount';
import { amountText, plural } from '../../../utils/plural';

type GrammaticalCase = Parameters<typeof amountText>[3];

export const CODE_STATUS: Record<CodeStatus, { label: string; color: 'success' | 'info' | 'default' }> = {
  active: { label: 'Активен', color: 'success' },
  activated: { label: 'Активирован', color: 'info' },
  cancelled: { label: 'Отменён', color: 'default' },
};

export const codesWord = (n: number) => plural(n, ['код', 'кода', 'кодов']);
/** «5 кодов» */
export const codesCount = (n: number) => `${formatAmount(n)}\u00a0${codesWord(n)}`;
/** «1 500 000 аден» (the unit never wraps away from its number); adenShort: «1,5кк аден». */
export const aden = (n: number) => amountText(n, 1, '\u00a0');
/** After «на» or «за»: код на 150 001 адену, за 21 адену. */
export const adenAcc = (n: number) => amountText(n, 1, '\u00a0', 'acc');
/** After a preposition or comparison that takes the genitive: меньше 21 адены, меньше 5 аден. */
export const adenGen = (n: number) => amountText(n, 1, '\u00a0', 'gen');
/**
 * «1,5кк аден» in the players' shorthand; an amount it writes out in full (under a million, or not a whole
 * hundredth of one) takes its own plural and case, as `aden`: «от 150 001 адены», «код на 150 001 адену».
 */
export function adenShort(n: number, grammaticalCase: GrammaticalCase = 'nom') {
  const short = formatShort(n);
  return short === formatAmount(n) ? amountText(n, 1, '\u00a0', grammaticalCase) : `${short}\u00a0аден`;
}

/**
 * A refusal that comes after its dialog was closed or its server left: said in a notice that names the
 * server, not on the dialog open now. A lost answer (no connection) says nothing: the request is in doubt
 * and its key kept, so sending it again learns its fate.
 */
export function refusedElsewhere(snackbar: (text: string, status: 'error') => void, what: string, err: unknown) {
  if (!(err instanceof ApiError)) return;
  // A field's own message when the server names one: a 422's message alone («проверьте введённые данные») loses the reason.
  const reason = Object.values(err.fieldErrors).flat()[0] ?? err.message;
  const why = reason ? `${reason.charAt(0).toLowerCase()}${reason.slice(1)}` : '';
  snackbar(why ? `${what}: ${why}` : what, 'error');
}

/** An error answer as the alert dialog shows it: a title and the server's list of messages. */
export function alertContent(err: unknown): { text: string; errors: string[] } {
  if (!(err instanceof ApiError)) return { text: errorMessage('INTERNAL'), errors: [] };
  const errors = [...new Set(Object.values(err.fieldErrors).flat())].filter((e) => e !== err.message);
  return { text: err.message, errors };
}

export const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });
export const dateOnly = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long' });

/**
 * What tells two codes of one nominal apart to a screen reader: the code's last group (shown even when
 * masked: ADN-7KQ2-****-****-H3RC → «…H3RC»), else its date.
 */
export const codeTag = (code: Pick<Code, 'sert' | 'created_at'>) => {
  const tail = /[A-Z0-9]{4}$/i.exec(code.sert)?.[0];
  return tail ? `…${tail}` : `от ${dateTime.format(new Date(code.created_at))}`;
};

/**
 * price = nominal + fee, the fee rounded up to a whole adena (PRODUCT.md section 5), in whole numbers as the
 * server counts it: past 2^53 the float product rounded, and the estimate came out one adena below the price
 * the server asks for, so such a batch answered 409 at every press (review 2026-11-27).
 */
export const estimatePrice = (nominal: number, feeBp: number) => {
  if (!Number.isSafeInteger(nominal) || !Number.isSafeInteger(feeBp)) return nominal + Math.ceil((nominal * feeBp) / 10_000);
  const n = BigInt(nominal);
  return Number(n + (n * BigInt(feeBp) + 9_999n) / 10_000n);
};
