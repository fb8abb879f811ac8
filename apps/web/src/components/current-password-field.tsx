import TextField from '@mui/material/TextField';
import { useUser } from '../lib/session';

const NO_PASSWORD_HINT = 'Если пароля у аккаунта нет (вход через Discord или Telegram), оставьте пустым';

/**
 * «Текущий пароль» of a call a stolen session alone must not make (adding a passkey, an API key, the
 * webhook, turning TOTP on): the server's 422 under it. An account without a password (the user object's
 * `has_password`) is not asked: the field is left out, and its empty value sends none. While that is not known
 * (a user object saved by an older build), the hint says to leave it empty.
 */
export function CurrentPasswordField(props: { value: string; onChange: (password: string) => void; error?: string; testId: string; compact?: boolean }) {
  const hasPassword = useUser().user?.has_password;
  if (hasPassword === false && !props.error) return null;
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
      helperText={props.error ?? (hasPassword ? undefined : NO_PASSWORD_HINT)}
    />
  );
}
