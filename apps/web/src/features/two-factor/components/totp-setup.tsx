import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { CurrentPasswordField } from '../../../components/current-password-field';
import { userQueryOptions } from '../../../lib/session';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useTwoFactorEnable, twoFactorEnableBody } from '../api/two-factor-enable';
import { useTwoFactorSetup } from '../api/two-factor-setup';
import { RecoveryCodes } from './recovery-codes';

/**
 * Draws the otpauth:// address as a QR code in the browser (the secret never leaves the page), with the
 * standard's white margin of four modules: on the dark theme's dialog a thinner one fails some scanners.
 */
function Qr({ value }: { value: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode').then((QR) => {
      if (live && ref.current) void QR.toCanvas(ref.current, value, { width: 216, margin: 4 });
    });
    return () => {
      live = false;
    };
  }, [value]);
  return <Box component="canvas" ref={ref} aria-label="QR-код для приложения-аутентификатора" sx={{ bgcolor: '#fff', borderRadius: 1 }} />;
}

/**
 * TOTP setup: QR and secret text, then the first code; then the recovery codes, once.
 * Used in the profile's dialog and in the operators' walkthrough.
 */
export function TotpSetup({ onDone, onCodesShown, onSending }: { onDone(): void; onCodesShown?(): void; onSending?(sending: boolean): void }) {
  const setup = useTwoFactorSetup();
  const enable = useTwoFactorEnable();
  const qc = useQueryClient();
  const f = useFormErrors();
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    setup.mutate();
  }, [setup]);
  const shown = enable.data !== undefined;
  const latestShown = useRef(onCodesShown);
  latestShown.current = onCodesShown;
  useEffect(() => {
    if (shown) latestShown.current?.();
  }, [shown]);
  // While «Включить» is on its way the dialog must stay: its answer carries the recovery codes, shown once.
  const sending = enable.isPending;
  const latestSending = useRef(onSending);
  latestSending.current = onSending;
  useEffect(() => {
    latestSending.current?.(sending);
  }, [sending]);

  if (enable.data) {
    return (
      <Stack spacing={2}>
        <Typography>Вход с кодом включён.</Typography>
        <RecoveryCodes codes={enable.data.recovery_codes} />
        <Button
          variant="contained"
          onClick={() => {
            void qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
            onDone();
          }}
        >
          Коды сохранены
        </Button>
      </Stack>
    );
  }
  if (setup.isError) return <Typography color="error">{setup.error.message}</Typography>;
  if (!setup.data) return <CircularProgress aria-label="Готовим секрет…" />;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    f.clear();
    const body = f.validate(twoFactorEnableBody, { code, password: password || undefined });
    if (!body) return;
    try {
      await enable.mutateAsync(body);
    } catch (err) {
      f.fromError(err);
    }
  }

  return (
    <Stack spacing={2} component="form" noValidate onSubmit={submit}>
      <Typography>1. Отсканируйте QR-код в приложении-аутентификаторе (Google Authenticator, Яндекс Ключ, 1Password…).</Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { xs: 'center', sm: 'flex-start' } }}>
        <Qr value={setup.data.otpauth_url} />
        <Stack spacing={0.5} sx={{ minWidth: 0 }}>
          <Typography variant="body2" color="textSecondary">
            Или введите секрет вручную:
          </Typography>
          <Typography data-testid="totp-secret" sx={{ fontFamily: 'monospace', wordBreak: 'break-all', userSelect: 'all' }}>
            {setup.data.secret}
          </Typography>
        </Stack>
      </Stack>
      <Typography>2. Введите 6 цифр, которые показывает приложение, и текущий пароль.</Typography>
      {f.formError && <Typography color="error">{f.formError}</Typography>}
      <TextField
        label="Код из приложения"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        autoComplete="one-time-code"
        slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'totp-enable-code' } }}
        error={Boolean(f.fieldError('code'))}
        helperText={f.fieldError('code')}
      />
      <CurrentPasswordField testId="totp-enable-password" value={password} onChange={setPassword} error={f.fieldError('password')} />
      <Button type="submit" variant="contained" disabled={enable.isPending}>
        Включить
      </Button>
    </Stack>
  );
}
