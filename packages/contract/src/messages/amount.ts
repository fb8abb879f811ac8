/**
 * The one way Russian texts write an amount: whole numbers grouped by thousands, 1000000 →
 * '1 000 000'. The server's texts use a plain space; the web app passes a no-break space, the
 * separator its ru-RU number format uses. SQL writes the one text it owns (the Telegram notice of a
 * low balance, db/functions/requests.sql) with its twin, grouped_amount.
 */
export function formatAmount(v: number | bigint, space = ' '): string {
  const digits = typeof v === 'bigint' ? v.toString() : Math.round(v).toString();
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, space);
}

/** A word's three Russian number forms: one (1, 21), few (2, 22), many (0, 5, 11, 111). */
export type PluralForms = readonly [one: string, few: string, many: string];

const rules = new Intl.PluralRules('ru');

/**
 * plural(5, ['код', 'кода', 'кодов']) → 'кодов'. The form depends only on the last two digits, so a
 * bigint beyond a double's precision is reduced first.
 */
export function plural(n: number | bigint, [one, few, many]: PluralForms): string {
  const v = typeof n === 'bigint' ? Number((n < 0n ? -n : n) % 100n) : Math.abs(Math.round(n));
  const rule = rules.select(v);
  return rule === 'one' ? one : rule === 'few' ? few : many;
}

/**
 * The currencies' words after a number, by grammatical case: nom 'на балансе 1 адена', gen
 * 'вывод 1 адены', acc 'передайте 1 адену'.
 */
export const CURRENCY_WORDS = {
  1: {
    nom: ['адена', 'адены', 'аден'],
    gen: ['адены', 'аден', 'аден'],
    acc: ['адену', 'адены', 'аден'],
  },
  2: {
    nom: ['монета эйнхасад', 'монеты эйнхасад', 'монет эйнхасад'],
    gen: ['монеты эйнхасад', 'монет эйнхасад', 'монет эйнхасад'],
    acc: ['монету эйнхасад', 'монеты эйнхасад', 'монет эйнхасад'],
  },
} as const satisfies Record<1 | 2, Record<'nom' | 'gen' | 'acc', PluralForms>>;

export type GrammaticalCase = 'nom' | 'gen' | 'acc';

/** The currency's word for this amount: currencyWord(2, 2) → 'монеты эйнхасад'. */
export const currencyWord = (v: number | bigint, currency: 1 | 2, grammaticalCase: GrammaticalCase = 'nom') =>
  plural(v, CURRENCY_WORDS[currency][grammaticalCase]);

/** An amount with its currency's word: amountText(1024, 2) → '1 024 монеты эйнхасад'. */
export const amountText = (v: number | bigint, currency: 1 | 2, space = ' ', grammaticalCase: GrammaticalCase = 'nom') =>
  `${formatAmount(v, space)}${space}${currencyWord(v, currency, grammaticalCase)}`;

/** An amount of adena in a Russian text: '1 000 000 аден', '1 адена', '2 адены'. */
export const adenaText = (v: number | bigint, space = ' ', grammaticalCase: GrammaticalCase = 'nom') => amountText(v, 1, space, grammaticalCase);

/**
 * Why an amount outside a server's limits on one request is refused, under «Сумма»: the server's 422
 * (requests.service.ts) and the web form that refuses it before sending say it in these words. A limit whose
 * max is 0 means the server takes no such requests.
 */
export const limitRefusalText = (limits: { min: number | bigint; max: number | bigint }, currency: 1 | 2): string =>
  BigInt(limits.max) === 0n ? 'Сейчас этот сервер не принимает такие заявки' : `От ${formatAmount(limits.min)} до ${amountText(limits.max, currency, ' ', 'gen')}`;
