import type { Gamesserver } from '@adena/contract/lite';
import Telegram from '@mui/icons-material/Telegram';
import WorkspacePremiumOutlined from '@mui/icons-material/WorkspacePremiumOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ButtonBase from '@mui/material/ButtonBase';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { type ReactNode, useState } from 'react';
import { isTelegramLaunch } from '../../../lib/telegram';
import { useUi } from '../../../lib/ui-store';
import { plural } from '../../../utils/plural';
import { useUser } from '../../../lib/session';
import { RealtimeIndicator } from '../../../components/realtime-indicator';
import { USER_READ_FAILED_ACTION, UserReadFailed } from '../../../components/user-read-failed';
import { type ServerWait, useGamesservers } from '../../../lib/gamesservers';
import { useWallet } from '../../../lib/wallets';
import { useCodeIncidents } from '../api/code-incidents';
import { useHasErrorCodes } from '../api/get-error-user-code';
import { isAuthPriceData, usePriceData } from '../api/price-data';
import { mergedCodes } from '../api/price-data-cache';
import { ActivationForm } from './activation-form';
import { AllCodesList } from './all-codes-list';
import { aden, adenAcc, adenShort, CODE_STATUS } from './code-format';
import { CancelCodeDialog, MyCodesList } from './my-codes-list';
import { ShowCodeDialog } from './show-code-dialog';
import { SubscribeTelegramDialog } from './subscribe-telegram-dialog';
import { EditUserVariantDialog } from './edit-user-variant-dialog';
import { CreateSuccessDialog, DeleteSuccessDialog, UserVariantDialog, UserVariantsList } from './user-variant-dialogs';
import { VipDialog } from './vip-dialog';

function Section({ title, action, children, testId }: { title: string; action?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <Card variant="outlined" data-testid={testId}>
      <CardContent>
        <Stack spacing={2}>
          <Stack direction="row" useFlexGap sx={{ justifyContent: 'space-between', alignItems: 'center', flexWrap: 'wrap', columnGap: 2, rowGap: 0.5 }}>
            <Typography variant="h3" component="h2">
              {title}
            </Typography>
            {action}
          </Stack>
          {children}
        </Stack>
      </CardContent>
    </Card>
  );
}

/**
 * An amount as `aden`/`adenShort` write it («10 300 000 аден», «100кк аден») for a narrow tile: the number kept whole,
 * then an ordinary space, so the line breaks before the unit as a word. overflowWrap 'anywhere' broke it inside
 * («10 300 000 аде / н»), and the whole text joined by no-break spaces ran past the tile («100кк аден» at 360 px).
 */
function breakBeforeUnit(text: string) {
  const i = text.lastIndexOf('\u00a0');
  return (
    <>
      <Box component="span" sx={{ whiteSpace: 'nowrap' }}>
        {text.slice(0, i)}
      </Box>{' '}
      {text.slice(i + 1)}
    </>
  );
}

function NominalTile({ nominal, price, onClick }: { nominal: number; price: number; onClick(): void }) {
  return (
    <ButtonBase
      onClick={onClick}
      aria-label={`Купить код на ${adenAcc(nominal)} за ${adenAcc(price)}`}
      data-testid="nominal"
      sx={{
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'flex-start',
        textAlign: 'left',
        gap: 0.25,
        p: 1.5,
        border: 1,
        borderColor: 'divider',
        borderRadius: 2,
        minWidth: 0,
        transition: 'border-color 120ms, background-color 120ms',
        '&:hover': { borderColor: 'primary.main', bgcolor: 'action.hover' },
        '&.Mui-focusVisible': { outline: 2, outlineColor: 'primary.main', outlineStyle: 'solid' },
      }}
    >
      <Typography sx={{ fontWeight: 700, fontSize: '1.2rem', lineHeight: 1.3 }}>{breakBeforeUnit(adenShort(nominal))}</Typography>
      <Typography variant="body2" color="textSecondary">
        цена {breakBeforeUnit(aden(price))}
      </Typography>
      <Typography variant="body2" sx={{ color: 'primary.main', fontWeight: 600, mt: 0.5 }}>
        Купить код
      </Typography>
    </ButtonBase>
  );
}

function IncidentsNotice() {
  const { count } = useHasErrorCodes();
  const incidents = useCodeIncidents(count > 0);
  const openDialog = useUi((s) => s.openDialog);
  if (count === 0) return null;
  const first = incidents.data?.find((i) => !i.acknowledged_at);
  return (
    <Alert
      severity="warning"
      data-testid="incidents-notice"
      action={
        first && (
          <Button color="inherit" size="small" onClick={() => openDialog({ name: 'error_code', incidentId: first.id })}>
            Подробнее
          </Button>
        )
      }
    >
      Ваш код пытались активировать повторно{count > 1 ? ` (${count} ${plural(count, ['раз', 'раза', 'раз'])})` : ''}.
    </Alert>
  );
}

/** The wallet's low-balance dialog and the top-up it offers, rendered by whoever composes this tab. */
export type TopUpDialogs = (server: Gamesserver, nick: string | null) => ReactNode;

function ServerCodes({ server, topUp }: { server: Gamesserver; topUp: TopUpDialogs }) {
  const { isSignedIn, user, readFailed } = useUser();
  // Inside Telegram there is no app bar, so the connection state shows here instead.
  const [isTelegram] = useState(isTelegramLaunch);
  const openDialog = useUi((s) => s.openDialog);
  const alert = useUi((s) => s.alert);
  const q = usePriceData(server.id);
  const { data: servers } = useGamesservers();
  const wallet = useWallet(server.id);
  const auth = isAuthPriceData(q.data) ? q.data : undefined;
  const balance = wallet?.balance ?? auth?.wallet.balance ?? null;
  const coinBalance = wallet?.balance_second ?? auth?.wallet.balance_second ?? null;
  const feeBp = user?.vip ? server.vip_code_fee_bp : server.code_fee_bp;
  const serverName = (id: number) => servers?.find((s) => s.id === id)?.name;

  // The user's read failed with a token held: not «Вы не авторизованы» (the tab says so above with «Повторить»).
  const needSignIn = (then: () => void) => () =>
    isSignedIn ? then() : readFailed ? alert(USER_READ_FAILED_ACTION) : openDialog({ name: 'not_signed_in' });

  return (
    <Stack spacing={2} data-testid="codes-tab">
      {readFailed && <UserReadFailed />}
      <Section
        title={`Коды на ${server.name}`}
        testId="nominals"
        action={
          isSignedIn && balance !== null ? (
            <Typography color="textSecondary" data-testid="codes-balance">
              Баланс: <b>{aden(balance)}</b>
            </Typography>
          ) : undefined
        }
      >
        {isSignedIn && <IncidentsNotice />}
        <Typography color="textSecondary">
          Код — это сертификат на адену: передайте его другу или покупателю, и он активирует его на своём кошельке на {server.name}.
        </Typography>
        {/* A failed refresh (a restart of the service) keeps the prices read before: they are checked when paid anyway. */}
        {q.isError && !q.data ? (
          <Alert severity="error">Не удалось загрузить коды. Обновите страницу.</Alert>
        ) : (
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: 'repeat(2, minmax(0, 1fr))', sm: 'repeat(3, minmax(0, 1fr))' }, gap: 1.5 }}>
            {q.data
              ? q.data.standard_nominals.map((n) => (
                  <NominalTile
                    key={n.nominal}
                    nominal={n.nominal}
                    price={n.price}
                    onClick={needSignIn(() => openDialog({ name: 'show_code', gameServerId: server.id, nominal: n.nominal, price: n.price }))}
                  />
                ))
              : [0, 1, 2].map((i) => <Skeleton key={i} variant="rounded" height={96} />)}
          </Box>
        )}
      </Section>

      <Section title="Активировать код" testId="activation">
        <ActivationForm serverName={serverName} />
        {auth?.user_kod && (
          <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1 }} data-testid="user-kod">
            <Typography variant="body2" color="textSecondary">
              Последний активированный вами код на {server.name}: {aden(auth.user_kod.nominal)}
            </Typography>
            <Chip size="small" variant="outlined" label={CODE_STATUS[auth.user_kod.status].label} color={CODE_STATUS[auth.user_kod.status].color} />
          </Stack>
        )}
      </Section>

      {isSignedIn && (
        <Section title="Мои коды" testId="my-codes-section" action={isTelegram ? <RealtimeIndicator withText /> : undefined}>
          <AllCodesList
            gameServerId={server.id}
            openCodes={auth ? <MyCodesList codes={mergedCodes(auth)} gameServerId={server.id} /> : <Skeleton variant="rounded" height={80} />}
          />
        </Section>
      )}

      {isSignedIn && (
        <Section title="Свои номиналы" testId="user-variants-section">
          <Typography color="textSecondary">
            Нужен другой номинал или сразу много кодов? Создайте вариант: от {adenShort(server.min_nominal, 'gen')}, до 100 кодов за раз.
          </Typography>
          {auth ? <UserVariantsList userVariants={auth.pricekods} codes={auth.svoy_variant_kods} /> : <Skeleton variant="rounded" height={40} />}
        </Section>
      )}

      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
        <Button variant="outlined" startIcon={<WorkspacePremiumOutlined />} onClick={needSignIn(() => openDialog({ name: 'vip' }))} sx={{ flex: 1 }}>
          {user?.vip ? 'VIP активен' : `VIP — комиссия ${(server.vip_code_fee_bp / 100).toLocaleString('ru-RU')}%`}
        </Button>
        <Button variant="outlined" startIcon={<Telegram />} onClick={needSignIn(() => openDialog({ name: 'subscribe_telegram' }))} sx={{ flex: 1 }}>
          Уведомления в Telegram
        </Button>
      </Stack>

      {isSignedIn && (
        <>
          <ShowCodeDialog walletId={auth?.wallet.id ?? null} balance={balance} />
          <CancelCodeDialog />
          <UserVariantDialog server={server} feeBp={feeBp} />
          <EditUserVariantDialog server={server} feeBp={feeBp} userVariants={auth?.pricekods} codes={auth?.svoy_variant_kods} />
          <CreateSuccessDialog />
          <DeleteSuccessDialog />
          <VipDialog server={server} coinBalance={coinBalance} />
          <SubscribeTelegramDialog server={server} telegramPrice={auth?.telegram_price ?? null} />
          {topUp(server, wallet?.nick ?? auth?.nick ?? null)}
        </>
      )}
    </Stack>
  );
}

/**
 * Counts the accounts this tab has shown here: one more when the account seen ends (signed out) or another one
 * replaces it, not when the user read answers (a cold start with a token, «Повторить» after a failed read, the mini
 * app's sign-in from signed out): a code typed in the activation form meanwhile stays.
 */
function useAccountTurn() {
  const { user, isPending, readFailed } = useUser();
  const [seen, setSeen] = useState<{ id: number | null; turn: number }>({ id: user?.id ?? null, turn: 0 });
  const id = user?.id ?? null;
  const signedOut = !user && !isPending && !readFailed;
  let next = seen;
  if (id !== null && id !== seen.id) next = { id, turn: seen.id === null ? seen.turn : seen.turn + 1 };
  else if (signedOut && seen.id !== null) next = { id: null, turn: seen.turn + 1 };
  if (next !== seen) setSeen(next);
  return next.turn;
}

/** The codes tab of the selected game server. */
export default function CodesTab({ server, wait = null, topUp }: { server: Gamesserver | undefined; wait?: ServerWait; topUp: TopUpDialogs }) {
  const turn = useAccountTurn();
  if (!server) {
    if (wait === 'loading') return <Skeleton variant="rounded" height={240} data-testid="codes-loading" />;
    if (wait !== null) return <Alert severity="error">{wait.failed}</Alert>;
    return <Alert severity="info" role="status">Выберите игровой сервер, чтобы увидеть подарочные коды.</Alert>;
  }
  // Keyed by the account too: another account signed in here (another tab, the mini app's switch) opens «Все мои
  // коды» folded, on its first page and with no status filter, not as the last account left it; a sign-out clears
  // a code typed into the activation form (a shared device).
  return <ServerCodes key={`${turn}:${server.id}`} server={server} topUp={topUp} />;
}
