import { TWO_FACTOR_MESSAGES as T } from '@adena/contract';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { Redirect, Link as RouterLink, useLocation } from 'wouter';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError } from '../../../lib/api-client';
import { latinKeys } from '../../../lib/keyboard-layout';
import { pendingSecondStep } from '../api/second-step';
import { twoFactorVerifyBody, useTwoFactorVerify } from '../api/two-factor-verify';
import { AuthCard } from './auth-card';
import { takeReturnTo } from '../../../lib/return-to';

/** The 429s of a pending sign-in used up by its own wrong codes (two-factor.service.ts verify). */
const spent = (message: string) => message === T.tooManyCodes || message === T.resetTooManyCodes;

/** The sign-in's second step (TOTP on): the code from the app, or a recovery code. */
export function TwoFactorStep() {
  const [, navigate] = useLocation();
  const f = useFormErrors();
  const [code, setCode] = useState('');
  const [token] = useState(pendingSecondStep.get);
  // A reset's pending sign-in: the new password waits for the code, and starting over means the reset again.
  const [reset] = useState(pendingSecondStep.reset);
  const verify = useTwoFactorVerify();
  if (!token) return <Redirect to="/auth/login_methods/email" replace />;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    // A recovery code typed on the Russian layout reads as the Latin keys it was typed with (lib/keyboard-layout).
    const body = f.validate(twoFactorVerifyBody, { two_factor_token: token, code: latinKeys(code) });
    if (!body) return;
    try {
      await verify.mutateAsync(body);
      navigate(takeReturnTo(), { replace: true });
    } catch (err) {
      // An expired or used-up pending sign-in cannot be retried: back to the password, or for a reset to the reset.
      // The other 429, the account's wrong codes across sign-ins and step-ups, only asks to wait: the server keeps
      // the pending sign-in until it expires.
      if (err instanceof ApiError && (err.status === 401 || (err.status === 429 && spent(err.message)))) pendingSecondStep.clear();
      // The server names a reset's expiry while it still holds the pending sign-in; past its purge it cannot tell.
      if (reset && err instanceof ApiError && err.status === 401) f.fromError(new ApiError(401, { message: T.resetExpired }));
      else f.fromError(err);
    }
  }

  return (
    <AuthCard
      title="Код подтверждения"
      error={f.formError}
      footer={
        reset ? (
          <Link component={RouterLink} to={`/auth/reset/${reset}`} sx={{ textAlign: 'center' }}>
            Начать восстановление пароля заново
          </Link>
        ) : (
          <Link component={RouterLink} to="/auth/login_methods/email" sx={{ textAlign: 'center' }}>
            Войти заново
          </Link>
        )
      }
    >
      <Typography color="textSecondary">Введите 6 цифр из приложения-аутентификатора или один из резервных кодов.</Typography>
      <Stack component="form" spacing={2} noValidate onSubmit={submit}>
        <TextField
          label="Код"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          autoComplete="one-time-code"
          slotProps={{ htmlInput: { inputMode: 'text', 'data-testid': 'two-factor-code' } }}
          error={Boolean(f.fieldError('code'))}
          helperText={f.fieldError('code')}
          autoFocus
        />
        <Button type="submit" variant="contained" size="large" disabled={verify.isPending}>
          Подтвердить
        </Button>
      </Stack>
    </AuthCard>
  );
}
