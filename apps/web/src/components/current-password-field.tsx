import TextField from '@mui/material/TextField';

const NO_PASSWORD_HINT = 'Если пароля у аккаунта нет (вход через Discord или Telegram), оставьте пустым';

/**
 * «Текущий пароль» of a call a stolen session alone must not make (adding a passkey, an API key, the
 * webhook, turning TOTP on): the server's 422 under it, else the hint for accounts without a password.
 */
export function CurrentPasswordField(props: { value: string; onChange: (password: string) => void; error?: string; testId: string; compact?: boolean }) {
  return (
    <TextField
      {...(props.compact ? { size: 'small' as const, sx: { maxWidth: { sm: 280 } } } : {})}
      label="Текущий пароль"
      type="password"
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      autoComplete="current-password"
      slotProps={{ htmlInput: { 'data-testid': props.testId, maxLength: 128 } }}
      error={Boolean(props.error)}
      helperText={props.error ?? NO_PASSWORD_HINT}
    />
  );
}
