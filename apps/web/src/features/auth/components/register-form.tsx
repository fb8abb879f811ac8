import { FIELD_MESSAGES } from '@adena/contract';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useCodeVerificationRegister } from '../api/code-verification-register';
import { useNewTokenRegister } from '../api/new-token-register';
import { registerBodySchema, useRegister } from '../api/register';
import { AuthCard } from './auth-card';
import { CodeStep } from './code-step';
import { loadStrengthChecker, PasswordStrength } from './password-strength';
import { takeReturnTo } from '../../../lib/return-to';

/** Sign-up in two steps (SPEC.md section 4): details → a code sent to the address → signed in. */
export function RegisterForm({ method }: { method: 'email' | 'phone' }) {
  const [, navigate] = useLocation();
  const f = useFormErrors();
  const [busy, setBusy] = useState(false);
  const [values, setValues] = useState({ login: '', name: '', password: '', password_confirmation: '' });
  const [token, setToken] = useState<string | null>(null);
  // The server's refusal of a password (a common one) applies to the password it was sent, not to a new one being typed.
  const [sentPassword, setSentPassword] = useState('');
  const passwordError = f.fieldError('password') && (values.password === sentPassword || !sentPassword) ? f.fieldError('password') : undefined;
  // «Пароли не совпадают» as soon as both are typed and differ (not only on «Получить код»), and gone once they match.
  const confirmationError =
    values.password && values.password_confirmation
      ? values.password !== values.password_confirmation
        ? FIELD_MESSAGES.passwordMismatch
        : undefined
      : f.fieldError('password_confirmation');
  const register = useRegister();
  const verifyCode = useCodeVerificationRegister();
  const newToken = useNewTokenRegister();
  const set = (k: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [k]: e.target.value }));

  async function start(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    const { login, ...rest } = values;
    const input = { ...rest, [method]: login, name: rest.name || undefined };
    const body = f.validate(registerBodySchema[method], input);
    if (!body) return;
    setBusy(true);
    setSentPassword(values.password);
    try {
      setToken(await register.mutateAsync(body));
    } catch (err) {
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  }

  async function verify(code: string) {
    f.clear();
    setBusy(true);
    try {
      await verifyCode.mutateAsync({ method, token: token!, code });
      navigate(takeReturnTo(), { replace: true });
    } catch (err) {
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  }

  async function resend() {
    f.clear();
    try {
      setToken((await newToken.mutateAsync({ method, token: token! })) ?? token);
      return true;
    } catch (err) {
      f.fromError(err);
      return false;
    }
  }

  const title = method === 'email' ? 'Регистрация по почте' : 'Регистрация по телефону';
  if (token) {
    return (
      <AuthCard title={title} error={f.formError}>
        <CodeStep sentTo={values.login} error={f.fieldError('code')} busy={busy} onSubmit={verify} onResend={resend} />
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title={title}
      error={f.formError}
      footer={
        <Stack spacing={1} sx={{ alignItems: 'center' }}>
          <Link component={RouterLink} to={`/auth/login_methods/${method}`}>
            Уже есть аккаунт? Войти
          </Link>
          <Link component={RouterLink} to={method === 'email' ? '/auth/register/phone' : '/auth/register/email'}>
            {method === 'email' ? 'Зарегистрироваться по телефону' : 'Зарегистрироваться по почте'}
          </Link>
        </Stack>
      }
    >
      <Stack component="form" spacing={2} noValidate onSubmit={start}>
        <TextField
          label={method === 'email' ? 'Электронная почта' : 'Телефон'}
          type={method === 'email' ? 'email' : 'tel'}
          autoComplete={method === 'email' ? 'email' : 'tel'}
          placeholder={method === 'phone' ? '+7 900 000-00-00' : undefined}
          value={values.login}
          onChange={set('login')}
          error={Boolean(f.fieldError(method))}
          helperText={f.fieldError(method)}
          autoFocus
        />
        <TextField label="Имя (необязательно)" autoComplete="nickname" value={values.name} onChange={set('name')} error={Boolean(f.fieldError('name'))} helperText={f.fieldError('name')} />
        <TextField
          label="Пароль"
          type="password"
          autoComplete="new-password"
          value={values.password}
          onChange={set('password')}
          onFocus={() => void loadStrengthChecker().catch(() => {})}
          error={Boolean(passwordError)}
          helperText={passwordError ?? 'От 8 до 128 символов'}
        />
        <PasswordStrength password={values.password} userInputs={[values.login, values.name]} />
        <TextField
          label="Повторите пароль"
          type="password"
          autoComplete="new-password"
          value={values.password_confirmation}
          onChange={set('password_confirmation')}
          error={Boolean(confirmationError)}
          helperText={confirmationError}
        />
        <Button type="submit" variant="contained" size="large" disabled={busy}>
          Получить код
        </Button>
      </Stack>
    </AuthCard>
  );
}
