import { adminDashboard } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { TwoFactorCodeField } from '../../../components/two-factor-code-field';
import { ApiError, request } from '../../../lib/api-client';
import { useCodeField } from '../../../lib/second-factor-code';
import { callAccount, sameAccount } from '../../../lib/session';
import { needsStepUp } from '../../../lib/step-up';

const probeKey = ['admin', 'session-check'] as const;

/**
 * Admin calls answer 403 `two_factor_required` to a session that never showed the second factor (an
 * operator signed in through Telegram, which is not asked for the code): the area asks for the code
 * once, here, before anything else loads. Every other session passes at once.
 */
export function AdminSessionCheck({ children }: { children: ReactNode }) {
  const probe = useQuery({ queryKey: probeKey, queryFn: () => request(adminDashboard), retry: false, staleTime: Number.POSITIVE_INFINITY });
  if (probe.isPending) return <Skeleton variant="rounded" height={120} />;
  if (probe.error && needsStepUp(probe.error)) return <AdminCodePrompt message={probe.error.message} />;
  return children;
}

function AdminCodePrompt({ message }: { message: string }) {
  const qc = useQueryClient();
  const codeField = useCodeField();
  const code = codeField.code;
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) return;
    // A code that cannot be one (another script's letters, too short) is said under the field, not sent.
    const twoFactorCode = codeField.read();
    if (twoFactorCode === undefined) return;
    setPending(true);
    setError(null);
    const account = callAccount();
    try {
      const data = await request(adminDashboard, { twoFactorCode });
      // Signed out (or another account in) meanwhile: this check was the last account's.
      if (!sameAccount(account)) return;
      qc.setQueryData(probeKey, data);
      await qc.invalidateQueries({ queryKey: ['admin'] });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Не удалось проверить код. Попробуйте ещё раз');
      codeField.clear();
    } finally {
      setPending(false);
    }
  };
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, maxWidth: 640, mx: 'auto' }} data-view="admin-session-check">
      <Stack component="form" spacing={2} onSubmit={submit}>
        <Typography variant="h1">Подтвердите вход в админку</Typography>
        <Alert severity="info">{message}</Alert>
        {error && <Alert severity="error">{error}</Alert>}
        <TwoFactorCodeField {...codeField.field} />
        <Button type="submit" variant="contained" disabled={pending || !code.trim()} sx={{ alignSelf: 'flex-start' }}>
          Подтвердить
        </Button>
      </Stack>
    </Paper>
  );
}
