import { parseAmount } from '../../../utils/parse-amount';
import { amountText } from '../../../utils/plural';

/** What an amount field's text reads as, its currency's word agreeing with the number: '1кк' → «= 1 000 000 аден», '1' → «= 1 адена». */
export function amountHint(text: string, currency: 1 | 2): string | undefined {
  const n = parseAmount(text);
  return n === null ? undefined : `=\u00a0${amountText(n, currency, '\u00a0')}`;
}
