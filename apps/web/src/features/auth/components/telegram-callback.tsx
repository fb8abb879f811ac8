import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { telegramNonceIsOurs } from '../../../lib/sign-in-binding';
import { useTelegramAuth } from '../api/telegram-auth';
import { AuthCard } from './auth-card';
import { takeReturnTo } from '../../../lib/return-to';

/** Reads Telegram's signed login result from #tgAuthResult (base64 JSON) and lets the server check it. */
function readAuthResult(): Record<string, unknown> | null {
  const m = /tgAuthResult=([A-Za-z0-9_\-+/=]+)/.exec(window.location.hash);
  if (!m?.[1]) return null;
  try {
    const b64 = m[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))));
  } catch {
    return null;
  }
}

/**
 * Telegram's login page returns here with ?state=<this tab's nonce>#tgAuthResult=…; a result that
 * comes without the nonce this tab left with is someone else's link and is never sent.
 */
export function TelegramCallback() {
  const { mutateAsync: signIn } = useTelegramAuth();
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (!telegramNonceIsOurs(new URLSearchParams(window.location.search).get('state'))) {
      setError('Этот вход через Telegram начат не в этой вкладке или уже завершён. Войдите заново отсюда.');
      return;
    }
    const data = readAuthResult();
    if (!data) {
      setError('Telegram не подтвердил вход. Попробуйте ещё раз.');
      return;
    }
    signIn(data)
      .then(() => navigate(takeReturnTo(), { replace: true }))
      .catch((err: unknown) => setError(err instanceof ApiError ? err.message : 'Не удалось войти через Telegram.'));
  }, [signIn, navigate]);
  return (
    <AuthCard title="Вход через Telegram" error={error}>
      {error ? (
        <Button component={RouterLink} to="/auth/login_methods/email" variant="contained">
          К другим способам входа
        </Button>
      ) : (
        <Stack sx={{ alignItems: 'center', py: 3 }}>
          <CircularProgress aria-label="Входим…" />
        </Stack>
      )}
    </AuthCard>
  );
}
