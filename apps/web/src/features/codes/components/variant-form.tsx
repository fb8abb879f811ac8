import type { Gamesserver } from '@adena/contract/lite';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AmountField } from '../../../components/amount-field';
import type { useFormErrors } from '../../../hooks/use-form-errors';
import { formatShort } from '../../../utils/format-amount';
import { parseAmount } from '../../../utils/parse-amount';
import { aden, adenShort, estimatePrice } from './code-format';

// The fields and rules that the create and edit dialogs of a user variant share.

/** The fields the batch forms show: a refusal on any other (the batch gone, another server) is said above them. */
export const SHOWN = ['nominal', 'count'];

/** The server's refusal of a nominal below its minimum (gift-codes.ts, checkNominal), said before anything is sent. */
export const nominalRefusal = (server: Gamesserver, nominal: number) => (nominal < server.min_nominal ? `Номинал не меньше ${aden(server.min_nominal)}` : null);
/** A nominal read that may be sent: none typed, or one `refuse` names a refusal for, is not. */
export const sendable = (refuse: (nominal: number) => string | null, nominal: number | null) => nominal !== null && refuse(nominal) === null;

export function useVariantForm(initial: { nominal: number; count: number } | null) {
  // As players write it and as the dialog names it («3,5кк», «123 456 789»), not «3500000» (walk 16).
  const [nominal, setNominal] = useState(initial ? formatShort(initial.nominal) : '');
  const [count, setCount] = useState(initial ? String(initial.count) : '1');
  return { nominal, setNominal, count, setCount, parsedNominal: parseAmount(nominal), parsedCount: /^\d+$/.test(count.trim()) ? Number(count) : null };
}

export function VariantFields(props: {
  form: Pick<ReturnType<typeof useVariantForm>, 'nominal' | 'count' | 'parsedNominal' | 'parsedCount'> & { setNominal(v: string): void; setCount(v: string): void };
  f: ReturnType<typeof useFormErrors>;
  server: Gamesserver;
  feeBp: number;
  /** What the server would refuse of a nominal typed (its minimum), said before anything is sent. */
  refuse(nominal: number): string | null;
}) {
  const { form, f, server } = props;
  // No price for a nominal the server would refuse: the field says why instead.
  const each = sendable(props.refuse, form.parsedNominal) ? estimatePrice(form.parsedNominal!, props.feeBp) : null;
  return (
    <>
      <AmountField
        label="Номинал кода"
        value={form.nominal}
        // A server's error under a field was about what was sent: editing that field clears it (as the money form does).
        onChange={(v) => {
          if (f.fieldError('nominal')) f.clear();
          form.setNominal(v);
        }}
        unit={1}
        error={f.fieldError('nominal')}
        hint={`Не меньше ${adenShort(server.min_nominal, 'gen')}`}
        check={props.refuse}
        autoFocus
      />
      <TextField
        label="Количество кодов"
        value={form.count}
        onChange={(e) => {
          if (f.fieldError('count')) f.clear();
          form.setCount(e.target.value);
        }}
        error={Boolean(f.fieldError('count'))}
        helperText={f.fieldError('count') ?? 'От 1 до 100'}
        fullWidth
        autoComplete="off"
        slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'count-input' } }}
      />
      {each !== null && form.parsedCount !== null && form.parsedCount > 0 && (
        <Typography color="textSecondary">
          Цена кода ≈ {aden(each)} (комиссия {(props.feeBp / 100).toLocaleString('ru-RU')}%), всего ≈ <b>{aden(each * form.parsedCount)}</b>.
        </Typography>
      )}
    </>
  );
}
