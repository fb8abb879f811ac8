import { FIELD_MESSAGES, RESENDS_USED_UP } from '@adena/contract';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useRef, useState } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError } from '../../../lib/api-client';
import { useCodeVerificationRegister } from '../api/code-verification-register';
import { useNewTokenRegister } from '../api/new-token-register';
import { registerBodySchema, useRegister } from '../api/register';
import { AuthCard } from './auth-card';
import { useCodeFlow } from './code-flow';
import { CodeStep, type ResendOutcome } from './code-step';
import { loadStrengthChecker, PasswordStrength } from './password-strength';
import { takeReturnTo } from '../../../lib/return-to';

/** Sign-up in two steps (SPEC.md section 4): details → a code sent to the address → signed in. */
export function RegisterForm({ method }: { method: 'email' | 'phone' }) {
  const [, navigate] = useLocation();
  const f = useFormErrors();
  const [busy, setBusy] = useState(false);
  const [values, setValues] = useState({ login: '', name: '', password: '', password_confirmation: '' });
  // The flow and the address its code went to, as sent (the field may have been edited while the answer came),
  // kept across a reload of the tab.
  const [flow, setFlow] = useCodeFlow(`register:${method}`);
  const token = flow?.token ?? null;
  // The flow on show now, for an answer that comes late: one for a flow left meanwhile changes nothing on the page.
  const tokenNow = useRef(token);
  tokenNow.current = token;
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
      setFlow({ token: await register.mutateAsync(body), sentTo: login, sentAt: Date.now() });
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
      setFlow(null);
      navigate(takeReturnTo(), { replace: true });
    } catch (err) {
      f.fromError(err);
    } finally {
      setBusy(false);
    }
  }

  async function resend(): Promise<ResendOutcome> {
    f.clear();
    const sentFor = token;
    try {
      const next = await newToken.mutateAsync({ method, token: token! });
      // Only onto the flow it was sent for: after «Изменить данные» (or another flow) a late answer changes nothing.
      setFlow((fl) => (fl && next && fl.token === sentFor ? { ...fl, token: next, sentAt: Date.now() } : fl));
      return { sent: true };
    } catch (err) {
      // The refusal of a flow left meanwhile («Изменить данные», a new flow) says nothing over what is shown now.
      if (tokenNow.current !== sentFor) return { sent: false, error: err };
      // A flow that can no longer be resent (its 5 resends used up, or it expired) is started again from the
      // details, the reason above them: the code step counted down to the same refusal, again and again.
      if (err instanceof ApiError && (err.message === RESENDS_USED_UP || err.status === 422)) {
        const sentTo = flow?.sentTo ?? '';
        setValues((v) => (v.login ? v : { ...v, login: sentTo }));
        setFlow(null);
      }
      f.fromError(err);
      return { sent: false, error: err };
    }
  }

  const title = method === 'email' ? 'Регистрация по почте' : 'Регистрация по телефону';
  if (flow) {
    const restart = () => {
      f.clear();
      // After a reload the details are gone but the address is known: it is filled in again.
      setValues((v) => (v.login ? v : { ...v, login: flow.sentTo }));
      setFlow(null);
    };
    return (
      <AuthCard title={title} error={f.formError}>
        <CodeStep sentTo={flow.sentTo} sentAt={flow.sentAt} error={f.fieldError('code')} busy={busy} onSubmit={verify} onResend={resend} onRestart={restart} />
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
          disabled={busy}
          error={Boolean(f.fieldError(method))}
          // The code goes by SMS to mobiles only (README "Phone numbers and SMS"): said before a landline is refused.
          helperText={f.fieldError(method) ?? (method === 'phone' ? 'Мобильный номер: на него придёт СМС с кодом' : undefined)}
          autoFocus
        />
        <TextField label="Имя (необязательно)" autoComplete="nickname" value={values.name} onChange={set('name')} disabled={busy} error={Boolean(f.fieldError('name'))} helperText={f.fieldError('name')} />
        <TextField
          label="Пароль"
          type="password"
          autoComplete="new-password"
          value={values.password}
          onChange={set('password')}
          disabled={busy}
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
          disabled={busy}
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
