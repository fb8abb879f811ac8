import type { CurrencyType, Gamesserver } from '@adena/contract/lite';
import Edit from '@mui/icons-material/Edit';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import IconButton from '@mui/material/IconButton';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, useState } from 'react';
import { tokenStore } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { formatAmount, formatShort } from '../../../utils/format-amount';
import { currencyWord } from '../../../utils/plural';
import { useUser } from '../../../lib/session';
import { isTelegramLaunch, REOPEN_TO_SIGN_IN, useSelfSignInOver } from '../../../lib/telegram';
import type { ServerWait } from '../../../lib/gamesservers';
import { useWallet, useWallets } from '../../../lib/wallets';
import { useSelectedCurrency } from '../selected-currency';
import { Hint } from '../../../components/hint';
import { USER_READ_FAILED_ACTION, UserReadFailed } from '../../../components/user-read-failed';
import { ToggleChoice } from '../../../components/toggle-choice';
import { WalletDialogs } from './wallet-dialogs';

// The nick field (and MUI's input code with it) loads when a player without a nick, or one changing it, needs it.
const NickForm = lazy(() => import('./nick-form').then((m) => ({ default: m.NickForm })));

function NickEditor({ server, nick }: { server: Gamesserver; nick: string | null }) {
  const [editing, setEditing] = useState(!nick);
  // Back from a change (saved or cancelled), the focus returns to the pencil rather than to the page's top.
  const [back, setBack] = useState(false);
  const done = () => {
    setEditing(false);
    setBack(true);
  };
  if (!editing && nick) {
    return (
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
        <Typography color="textSecondary">
          Персонаж: <b data-testid="wallet-nick">{nick}</b>
        </Typography>
        <Hint title="Изменить ник">
          <IconButton size="small" aria-label="Изменить ник" autoFocus={back} onClick={() => setEditing(true)}>
            <Edit fontSize="small" />
          </IconButton>
        </Hint>
      </Stack>
    );
  }
  return (
    <Suspense fallback={<Skeleton variant="rounded" height={63} />}>
      <NickForm server={server} nick={nick} onSaved={done} onCancel={nick ? done : undefined} />
    </Suspense>
  );
}

const CURRENCIES = [
  { value: 1, label: 'Адена' },
  { value: 2, label: 'Монеты эйнхасад' },
] as const;

/**
 * `wait`: a server is saved but the list naming it is still being read, or could not be, with what to say (the app
 * reads it, features/servers/selected-server.ts): the card waits or says so, not «Выберите игровой сервер».
 */
export function WalletCard({ server, wait = null }: { server: Gamesserver | undefined; wait?: ServerWait }) {
  const { isSignedIn, isPending: userPending, readFailed } = useUser();
  const walletsQuery = useWallets();
  const wallet = useWallet(server?.id ?? null);
  const [currency, setCurrency] = useSelectedCurrency();
  const openDialog = useUi((s) => s.openDialog);
  const alert = useUi((s) => s.alert);
  const [inTelegram] = useState(isTelegramLaunch);
  const selfSignInOver = useSelfSignInOver();

  const act = (name: 'put' | 'take') => {
    // Still reading who is signed in (a slow network, the mini app's cold start): not «Вы не авторизованы».
    if (!isSignedIn && userPending && tokenStore.get()) return;
    // Nor when that read failed (the service down a moment): the card says so with «Повторить».
    if (readFailed) return alert(USER_READ_FAILED_ACTION);
    if (!isSignedIn) return openDialog({ name: 'not_signed_in' });
    // A saved server whose list is being read, or could not be: the card shows which; «Вы не выбрали сервер» would be untrue.
    if (!server && wait !== null) return;
    if (!server) return openDialog({ name: 'no_server' });
    openDialog({ name, currency });
  };

  const amount = wallet ? (currency === 1 ? wallet.balance : wallet.balance_second) : 0;
  return (
    <Card variant="outlined" data-testid="wallet-card">
      <CardContent>
        <Stack spacing={2}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}>
            <Typography variant="h2" component="h2">
              {server ? `Кошелёк на ${server.name}` : 'Кошелёк'}
            </Typography>
            <ToggleChoice<CurrencyType> value={currency} onChange={setCurrency} label="Валюта" options={CURRENCIES} />
          </Stack>
          {!server && wait === 'loading' ? (
            <Skeleton variant="text" height={56} width={220} data-testid="balance-loading" />
          ) : !server && wait !== null && wait !== 'loading' ? (
            <Alert severity="error">{wait.failed}</Alert>
          ) : !server ? (
            <Alert severity="info" role="status">Выберите игровой сервер, чтобы увидеть баланс.</Alert>
          ) : readFailed ? (
            <UserReadFailed />
          ) : !isSignedIn && !userPending && inTelegram && !selfSignInOver ? (
            // The mini app is still signing in with its launch data: not «Вы не вошли» meanwhile.
            <Skeleton variant="text" height={56} width={220} data-testid="balance-loading" />
          ) : !isSignedIn && !userPending ? (
            // Inside the mini app (its launch data stale or spent, or «Выйти» in Профиль) a new launch signs in: said here for good, not only in a notice.
            <Alert severity="info" data-testid="signed-out">
              {inTelegram ? `Вы не вошли. ${REOPEN_TO_SIGN_IN}.` : 'Войдите, чтобы увидеть баланс и пополнять кошелёк.'}
            </Alert>
          ) : walletsQuery.isPending ? (
            <Skeleton variant="text" height={56} width={220} />
          ) : walletsQuery.isError && !walletsQuery.data ? (
            // Never «0» for a balance that could not be read.
            <Alert
              severity="error"
              data-testid="balance-error"
              action={
                <Button color="inherit" size="small" onClick={() => void walletsQuery.refetch()}>
                  Повторить
                </Button>
              }
            >
              Не удалось загрузить баланс. Проверьте подключение и повторите.
            </Alert>
          ) : (
            <div>
              <Typography variant="body2" color="textSecondary">
                Баланс
              </Typography>
              <Typography component="p" sx={{ fontSize: { xs: '2rem', sm: '2.5rem' }, fontWeight: 700, lineHeight: 1.2 }} data-testid="balance">
                {formatAmount(amount)} <Typography component="span" sx={{ fontSize: '1rem', color: 'text.secondary' }}>{currencyWord(amount, currency)}</Typography>
              </Typography>
              {/* The players' shorthand for adena, when it says the same amount more briefly (2,5кк); coins are not counted in кк. */}
              {currency === 1 && formatShort(amount) !== formatAmount(amount) && (
                <Typography variant="body2" color="textSecondary">
                  = {formatShort(amount)}
                </Typography>
              )}
            </div>
          )}
          {server && isSignedIn && <NickEditor key={`${server.id}:${wallet?.nick ?? ''}`} server={server} nick={wallet?.nick ?? null} />}
          <Stack direction="row" spacing={1.5}>
            <Button variant="contained" size="large" sx={{ flex: 1 }} onClick={() => act('put')}>
              Пополнить
            </Button>
            <Button variant="outlined" size="large" sx={{ flex: 1 }} onClick={() => act('take')}>
              Вывести
            </Button>
          </Stack>
          {server?.median_processing_minutes != null && (
            <Typography variant="body2" color="textSecondary" sx={{ textAlign: 'center' }} data-testid="median-processing">
              Обычно обрабатываем около {server.median_processing_minutes}{'\u00a0'}мин
            </Typography>
          )}
        </Stack>
      </CardContent>
      <WalletDialogs
        server={server}
        nick={wallet?.nick ?? null}
        balances={walletsQuery.data ? { 1: wallet?.balance ?? 0, 2: wallet?.balance_second ?? 0 } : null}
      />
    </Card>
  );
}
