import { type CurrencyType, DEFAULT_CURRENCY } from '@adena/contract/lite';
import { useLocalState } from '../../lib/local-state';

const parse = (raw: string | null): CurrencyType => (raw === '2' ? 2 : raw === '1' ? 1 : (DEFAULT_CURRENCY as CurrencyType));
const serialize = (c: CurrencyType) => String(c);

/** SPEC.md section 3: the selected currency, 1 or 2, kept locally, default 1. */
export const useSelectedCurrency = () => useLocalState('currency_type', parse, serialize);
