import KeyIcon from '@mui/icons-material/Key';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { useLocation } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { usePasskeyLogin } from '../api/passkey-login';
import { takeReturnTo } from '../../../lib/return-to';

/** «Войти с ключом доступа»: no login typed; the browser offers the passkeys it holds for this site. */
export function PasskeyButton() {
  const [, navigate] = useLocation();
  const login = usePasskeyLogin();
  if (typeof window !== 'undefined' && !window.PublicKeyCredential) return null;
  const error = login.error
    ? login.error instanceof ApiError
      ? login.error.message
      : (login.error as Error).name === 'NotAllowedError'
        ? 'Вход с ключом отменён'
        : 'Не удалось войти с ключом доступа'
    : null;
  return (
    <Stack spacing={1}>
      {error && <Alert severity="error">{error}</Alert>}
      <Button
        variant="outlined"
        size="large"
        startIcon={<KeyIcon />}
        disabled={login.isPending}
        onClick={() => login.mutateAsync().then(() => navigate(takeReturnTo(), { replace: true }), () => undefined)}
      >
        Войти с ключом доступа
      </Button>
    </Stack>
  );
}
