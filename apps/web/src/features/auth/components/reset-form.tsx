import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError } from '../../../lib/api-client';
import { nextAfterSignIn } from '../api/second-step';
import { createNewPasswordBodySchema, useCreateNewPassword } from '../api/create-new-password';
import { resetPasswordBodySchema, useResetPassword } from '../api/reset-password';
import { useResetPasswordCodeCheck } from '../api/reset-password-code-check';
import { AuthCard } from './auth-card';
import { useCodeFlow } from './code-flow';
import { CodeStep, type ResendOutcome } from './code-step';

/** Password reset in three steps: address → code → new password (the new_password_token is the bearer). */
export function ResetForm({ method }: { method: 'email' | 'phone' }) {
  const [, navigate] = useLocation();
  const f = useFormErrors();
  const resetPassword = useResetPassword();
  const checkCode = useResetPasswordCodeCheck();
  const createPassword = useCreateNewPassword();
  const [busy, setBusy] = useState(false);
  const [login, setLogin] = useState('');
  // The flow and the address its code went to, as sent (the field may have been edited while the answer came),
  // kept across a reload of the tab.
  const [flow, setFlow] = useCodeFlow(`reset:${method}`);
  const [newPasswordToken, setNewPasswordToken] = useState<string | null>(null);
  const [pw, setPw] = useState({ password: '', password_confirmation: '' });

  const run = async (fn: () => Promise<void>) => {
    f.clear();
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  };

  if (newPasswordToken) {
    return (
      <AuthCard title="Новый пароль" error={f.formError}>
        <Stack
          component="form"
          spacing={2}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const body = f.validate(createNewPasswordBodySchema, pw);
            // SPEC.md section 5: nothing happens without the new password token.
            if (!body || !newPasswordToken) return;
            void run(async () => {
              try {
                navigate(nextAfterSignIn(await createPassword.mutateAsync({ method, body, newPasswordToken })), { replace: true });
              } catch (err) {
                // The token's 15 minutes are over (or another reset came first): every resubmit would get the same
                // 401, so back to the address, its refusal («…Начните восстановление заново») said above it.
                if (err instanceof ApiError && err.status === 401) setNewPasswordToken(null);
                throw err;
              }
            });
          }}
        >
          <TextField
            label="Новый пароль"
            type="password"
            autoComplete="new-password"
            value={pw.password}
            onChange={(e) => setPw((v) => ({ ...v, password: e.target.value }))}
            error={Boolean(f.fieldError('password'))}
            helperText={f.fieldError('password') ?? 'От 8 до 128 символов'}
            autoFocus
          />
          <TextField
            label="Повторите пароль"
            type="password"
            autoComplete="new-password"
            value={pw.password_confirmation}
            onChange={(e) => setPw((v) => ({ ...v, password_confirmation: e.target.value }))}
            error={Boolean(f.fieldError('password_confirmation'))}
            helperText={f.fieldError('password_confirmation')}
          />
          <Button type="submit" variant="contained" size="large" disabled={busy}>
            Сохранить пароль и войти
          </Button>
        </Stack>
      </AuthCard>
    );
  }

  if (flow) {
    const { token, sentTo, sentAt } = flow;
    return (
      <AuthCard title="Восстановление пароля" error={f.formError}>
        <CodeStep
          sentTo={sentTo}
          sentAt={sentAt}
          busy={busy}
          error={f.fieldError('code')}
          onSubmit={(code) =>
            void run(async () => {
              setNewPasswordToken(await checkCode.mutateAsync({ method, token, code }));
              // The code is spent: a reload from here starts over from the address, and so does an expired
              // new-password step, with the address filled in (after a reload only the flow knew it).
              setLogin((l) => l || sentTo);
              setFlow(null);
            })
          }
          // Reset has no resend call: asking again for the same address opens a new flow (the
          // server allows it once the minute has passed) and its token replaces the old one.
          onResend={async (): Promise<ResendOutcome> => {
            f.clear();
            try {
              const next = await resetPassword.mutateAsync(method === 'email' ? { email: sentTo } : { phone: sentTo });
              // Only onto the flow it was sent for: after «Изменить данные» (or another flow) a late answer changes nothing.
              if (next) setFlow((fl) => (fl?.token === token ? { token: next, sentTo, sentAt: Date.now() } : fl));
              return { sent: true };
            } catch (err) {
              f.fromError(err);
              return { sent: false, error: err };
            }
          }}
          onRestart={() => {
            f.clear();
            setLogin((l) => l || sentTo);
            setFlow(null);
          }}
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Восстановление пароля"
      error={f.formError}
      footer={
        <Link component={RouterLink} to={`/auth/login_methods/${method}`} sx={{ textAlign: 'center' }}>
          Вспомнили пароль? Войти
        </Link>
      }
    >
      <Stack
        component="form"
        spacing={2}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const body = f.validate(resetPasswordBodySchema[method], { [method]: login });
          if (!body) return;
          const sentTo = login;
          void run(async () => {
            const token = await resetPassword.mutateAsync(body);
            setFlow(token ? { token, sentTo, sentAt: Date.now() } : null);
          });
        }}
      >
        <TextField
          label={method === 'email' ? 'Электронная почта' : 'Телефон'}
          type={method === 'email' ? 'email' : 'tel'}
          autoComplete={method === 'email' ? 'email' : 'tel'}
          value={login}
          onChange={(e) => setLogin(e.target.value)}
          disabled={busy}
          error={Boolean(f.fieldError(method))}
          helperText={f.fieldError(method)}
          autoFocus
        />
        <Button type="submit" variant="contained" size="large" disabled={busy}>
          Получить код
        </Button>
      </Stack>
    </AuthCard>
  );
}
