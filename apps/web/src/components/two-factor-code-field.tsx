import TextField from '@mui/material/TextField';
import type { Ref } from 'react';

/**
 * The one field that asks for a step-up code: 6 digits from the authenticator app or a recovery code. A text
 * keypad, not a digits-only one: a recovery code has letters. `error`: why the typed code cannot be sent
 * (lib/second-factor-code), shown under the field.
 */
export function TwoFactorCodeField({
  value,
  onChange,
  error,
  inputRef,
}: {
  value: string;
  onChange: (code: string) => void;
  error?: string | null;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <TextField
      // Short enough for a 390 px dialog («…приложения-аутентификатора» was cut off); the line below says the rest.
      label="Код из приложения"
      inputRef={inputRef}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      autoComplete="one-time-code"
      autoFocus
      slotProps={{ htmlInput: { inputMode: 'text', 'data-testid': 'step-up-code' } }}
      error={Boolean(error)}
      helperText={error || '6 цифр из приложения или резервный код'}
    />
  );
}
