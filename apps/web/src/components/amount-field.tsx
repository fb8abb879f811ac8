import TextField from '@mui/material/TextField';
import { useId } from 'react';
import { formatAmount } from '../utils/format-amount';
import { amountTooBig, parseAmount } from '../utils/parse-amount';
import { currencyWord } from '../utils/plural';

/** An amount input that understands players' shorthand (1,5кк or 1.5кк) and shows what it read. */
export function AmountField(props: {
  label: string;
  value: string;
  onChange(text: string): void;
  error?: string;
  hint?: string;
  /** The currency whose word (in the number's plural form) follows the amount read. */
  unit: 1 | 2;
  autoFocus?: boolean;
  /** What is wrong with an amount read (above zero) for this use, in the server's words (a server's limits), or null. */
  check?(amount: number): string | null;
}) {
  const id = useId();
  const parsed = props.value.trim() ? parseAmount(props.value) : null;
  // What is wrong with the text typed, in the server's words for the same refusal («Слишком большая сумма», «…больше нуля»).
  const problem =
    props.value.trim() === ''
      ? null
      : parsed === null
        ? amountTooBig(props.value)
          ? 'Слишком большая сумма'
          : props.unit === 1
            ? 'Введите целое число, например 1500000 или 1,5кк'
            : 'Введите целое число монет, например 150'
        : parsed === 0
          ? 'Сумма должна быть больше нуля'
          : (props.check?.(parsed) ?? null);
  const helper =
    props.error ?? (props.value.trim() === '' ? props.hint : (problem ?? `= ${formatAmount(parsed ?? 0)} ${currencyWord(parsed ?? 0, props.unit)}`));
  return (
    <TextField
      id={id}
      label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      error={Boolean(props.error) || problem !== null}
      helperText={helper}
      autoFocus={props.autoFocus}
      autoComplete="off"
      fullWidth
      // A keyboard with letters: the numeric pad of inputMode="decimal" has no «к» for «1,5кк» (iOS
      // offers no way to switch it), and the shorthand is what players type.
      slotProps={{ htmlInput: { inputMode: 'text', 'data-testid': 'amount-input' } }}
    />
  );
}
