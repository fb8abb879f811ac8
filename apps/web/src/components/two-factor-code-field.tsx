import TextField from '@mui/material/TextField';

/** The one field that asks for a step-up code: 6 digits from the authenticator app or a recovery code. */
export function TwoFactorCodeField({ value, onChange }: { value: string; onChange: (code: string) => void }) {
  return (
    <TextField
      label="Код из приложения-аутентификатора"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      autoComplete="one-time-code"
      autoFocus
      slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'step-up-code' } }}
      helperText="6 цифр из приложения или резервный код"
    />
  );
}
