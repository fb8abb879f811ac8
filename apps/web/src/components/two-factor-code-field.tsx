import TextField from '@mui/material/TextField';

/**
 * The one field that asks for a step-up code: 6 digits from the authenticator app or a recovery code. A text
 * keypad, not a digits-only one: a recovery code has letters. `error`: why the typed code cannot be sent
 * (lib/second-factor-code), shown under the field.
 */
export function TwoFactorCodeField({ value, onChange, error }: { value: string; onChange: (code: string) => void; error?: string | null }) {
  return (
    <TextField
      label="Код из приложения-аутентификатора"
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
