import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useSearchParams } from 'wouter';
import { PageTabs, TabPanel } from '../../components/page-tabs';
import { UserReadFailed } from '../../components/user-read-failed';
import { useUser } from '../../lib/session';
import { CodesTab } from '../../features/codes/components/codes-tab-lazy';
import { HistoryList } from '../../features/history/components/history-list-lazy';
import { StatementView } from '../../features/statement/components/statement-view-lazy';
import { useWallets } from '../../lib/wallets';
import { ServerPicker } from '../../features/servers/components/server-picker';
import { useSelectedServer } from '../../features/servers/selected-server';
import { WalletCard } from '../../features/wallet/components/wallet-card';
import { WalletDialogs } from '../../features/wallet/components/wallet-dialogs';

const TABS = [
  { value: 'wallet', label: 'Кошелёк' },
  { value: 'codes', label: 'Коды' },
  { value: 'history', label: 'История' },
  { value: 'statement', label: 'Выписка' },
] as const;
type TabValue = (typeof TABS)[number]['value'];

export function HomeRoute() {
  // A server saved while the list is read (or could not be): the tabs wait or say so, not «Выберите игровой сервер».
  const { server, wait } = useSelectedServer();
  const { isSignedIn, user, readFailed } = useUser();
  const [params, setParams] = useSearchParams();
  // An operator decided a request the player has not read about yet (the wallet's new_message).
  const unread = useWallets().data?.some((w) => w.new_message) ?? false;
  const tab: TabValue = TABS.some((t) => t.value === params.get('tab')) ? (params.get('tab') as TabValue) : 'wallet';

  return (
    <Stack spacing={2.5}>
      <div>
        <Typography variant="h1" gutterBottom>
          Кошелёк адены
        </Typography>
        <Typography color="textSecondary">
          Пополняйте и выводите адену и монеты эйнхасад через кассира сервиса и превращайте баланс в подарочные коды.
        </Typography>
      </div>
      <ServerPicker />
      <Box data-view="tab-area" sx={{ borderBottom: 1, borderColor: 'divider' }}>
        <PageTabs
          idPrefix="home"
          value={tab}
          onChange={(v) => setParams(v === 'wallet' ? {} : { tab: v }, { replace: true })}
          tabs={TABS.map((t) => ({
            value: t.value,
            label:
              t.value === 'history' && unread ? (
                <Box component="span" sx={{ position: 'relative', pr: 1.25 }}>
                  {t.label}
                  {/* A plain dot, not MUI's Badge: the home page's script stays small. */}
                  <Box
                    component="span"
                    data-testid="history-badge"
                    sx={{ position: 'absolute', top: 0, right: 0, width: 8, height: 8, borderRadius: '50%', bgcolor: 'error.main' }}
                  />
                </Box>
              ) : (
                t.label
              ),
            'aria-label': t.value === 'history' && unread ? 'История, есть новые решения' : undefined,
          }))}
        />
      </Box>
      <TabPanel idPrefix="home" value={tab}>
        {tab === 'wallet' && <WalletCard server={server} wait={wait} />}
        {tab === 'codes' && <CodesTab server={server} wait={wait} topUp={(s, nick) => <WalletDialogs server={s} nick={nick} balances={null} />} />}
        {tab === 'history' &&
          (isSignedIn ? (
            <HistoryList gameServerId={server?.id ?? null} />
          ) : readFailed ? (
            <UserReadFailed />
          ) : (
            <Alert severity="info" role="status">Войдите, чтобы увидеть историю заявок.</Alert>
          ))}
        {tab === 'statement' &&
          (isSignedIn ? (
            // Starts at the server picked above and follows it; «Все серверы» stays a choice inside. Keyed by the account
            // too: another account signed in here starts on its own first page, not the last one's page and anchor.
            <StatementView key={`${user?.id ?? 'none'}:${server?.id ?? 'all'}`} initialServerId={server?.id ?? null} />
          ) : readFailed ? (
            <UserReadFailed />
          ) : (
            <Alert severity="info" role="status">Войдите, чтобы увидеть выписку по балансу.</Alert>
          ))}
      </TabPanel>
    </Stack>
  );
}
