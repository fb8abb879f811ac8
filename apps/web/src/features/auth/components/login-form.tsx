import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { loginBodySchema, useLogin } from '../api/login';
import { nextAfterSignIn } from '../api/second-step';
import { PasskeyButton } from './passkey-button';
import { AuthCard } from './auth-card';
import { SocialButtons } from './social-buttons';

export function LoginForm({ method }: { method: 'email' | 'phone' }) {
  const [, navigate] = useLocation();
  const f = useFormErrors();
  const [busy, setBusy] = useState(false);
  const [login_, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useLogin();

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    const body = f.validate(loginBodySchema[method], method === 'email' ? { email: login_, password } : { phone: login_, password });
    if (!body) return;
    setBusy(true);
    try {
      const res = await signIn.mutateAsync(body);
      navigate(nextAfterSignIn(res), { replace: true });
    } catch (err) {
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Вход"
      error={f.formError}
      footer={
        <Stack spacing={1} sx={{ alignItems: 'center' }}>
          <Link component={RouterLink} to={`/auth/reset/${method}`}>
            Забыли пароль?
          </Link>
          <Link component={RouterLink} to={`/auth/register/${method}`}>
            Нет аккаунта? Зарегистрироваться
          </Link>
        </Stack>
      }
    >
      <Stack component="form" spacing={2} noValidate onSubmit={submit}>
        <TextField
          label={method === 'email' ? 'Электронная почта' : 'Телефон'}
          type={method === 'email' ? 'email' : 'tel'}
          autoComplete={method === 'email' ? 'email' : 'tel'}
          placeholder={method === 'phone' ? '+7 900 000-00-00' : undefined}
          value={login_}
          onChange={(e) => setLogin(e.target.value)}
          error={Boolean(f.fieldError(method))}
          helperText={f.fieldError(method)}
          autoFocus
        />
        <TextField
          label="Пароль"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={Boolean(f.fieldError('password'))}
          helperText={f.fieldError('password')}
        />
        <Button type="submit" variant="contained" size="large" disabled={busy}>
          Войти
        </Button>
      </Stack>
      <Button component={RouterLink} to={method === 'email' ? '/auth/login_methods/phone' : '/auth/login_methods/email'}>
        {method === 'email' ? 'Войти по номеру телефона' : 'Войти по почте'}
      </Button>
      <Divider>или</Divider>
      <PasskeyButton />
      <SocialButtons />
    </AuthCard>
  );
}
