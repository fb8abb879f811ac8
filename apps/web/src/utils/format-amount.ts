import { formatAmount as groupDigits } from '@adena/contract/lite';

// `useGrouping: 'always'`: ru-RU leaves four-digit numbers ungrouped («1000ккк») while formatAmount
// groups them («1 000»); a browser older than the option reads it as `true` and falls back to that.
const short = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2, useGrouping: 'always' });

/**
 * 1234567 → «1 234 567»: the contract's grouping with the no-break space ru-RU uses, so a number never
 * wraps; a negative one (a cash account's balance) with a true minus, «−5 000», as the statement writes it.
 */
export const formatAmount = (n: number | bigint): string => (n < 0 ? `\u2212${groupDigits(-n, '\u00a0')}` : groupDigits(n, '\u00a0'));

/**
 * Players' shorthand: 1 500 000 → «1,5кк», 2 000 000 000 → «2ккк». Amounts under a
 * million, and any that would lose precision in shorthand, are written out in full.
 */
export function formatShort(n: number): string {
  const abs = Math.abs(n);
  for (const [size, suffix] of [
    [1e9, 'ккк'],
    [1e6, 'кк'],
  ] as const) {
    if (abs >= size) {
      // Exact in whole hundredths of the unit, decided on the integer: near 2^53 the division itself
      // rounds, and 9 007 199 240 000 001 would read «9 007 199,24ккк».
      if (abs % (size / 100) === 0) return `${short.format(n / size)}${suffix}`;
      return formatAmount(n);
    }
  }
  return formatAmount(n);
}
