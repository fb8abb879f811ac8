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

/** An amount of adena in a Russian text: '1 000 000 аден'. */
export const adenaText = (v: number | bigint, space = ' ') => `${formatAmount(v, space)}${space}аден`;
