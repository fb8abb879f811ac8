import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useLocation, useSearchParams } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { discordStateIsOurs } from '../../../lib/sign-in-binding';
import { useDiscordAuth } from '../api/discord-auth';
import { nextAfterSignIn } from '../api/second-step';
import { AuthCard } from './auth-card';

/**
 * Discord sends the player back here with ?code&state. The state must be the one this tab left
 * with (else the link came from someone else, and nothing is sent); the server checks it again
 * against the browser's cookie, and PKCE.
 */
export function DiscordCallback() {
  const [params] = useSearchParams();
  const { mutateAsync: signIn } = useDiscordAuth();
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const code = params.get('code');
    const state = params.get('state');
    if (!code || !state) {
      setError(params.get('error') === 'access_denied' ? 'Вход через Discord отменён.' : 'Discord не вернул код входа. Попробуйте ещё раз.');
      return;
    }
    if (!discordStateIsOurs(state)) {
      setError('Этот вход через Discord начат не в этой вкладке или уже завершён. Войдите заново отсюда.');
      return;
    }
    const redirect_uri = `${window.location.origin}/auth/discord/callback`;
    signIn({ code, state, redirect_uri })
      .then((res) => navigate(nextAfterSignIn(res), { replace: true }))
      .catch((err: unknown) => setError(err instanceof ApiError ? err.message : 'Не удалось войти через Discord.'));
  }, [params, signIn, navigate]);
  return (
    <AuthCard title="Вход через Discord" error={error}>
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
