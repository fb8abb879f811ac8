import DarkModeOutlined from '@mui/icons-material/DarkModeOutlined';
import LightModeOutlined from '@mui/icons-material/LightModeOutlined';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Container from '@mui/material/Container';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import { type ReactNode, Suspense, useRef } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { useColorMode } from '../provider';
import { useTelegram } from '../telegram';
import { RealtimeIndicator } from '../../components/realtime-indicator';
import { AdminAppBar } from '../../components/layouts/admin-app-bar';
import { Footer } from '../../components/layouts/footer';
import { GlobalDialogs } from './global-dialogs';
import { usePageChange } from './page-change';
import { ErrorBoundary, ErrorNotice } from '../../components/error-boundary';
import { OfflineNotice } from '../../components/layouts/offline-notice';
import { UserMenu } from '../../components/layouts/user-menu';
import { Hint } from '../../components/hint';
import { useBrandName } from '../../lib/public-config';
import { useUser } from '../../lib/session';

function ThemeToggle() {
  const { mode, setChoice } = useColorMode();
  const next = mode === 'dark' ? 'light' : 'dark';
  return (
    <Hint title={next === 'dark' ? 'Тёмная тема' : 'Светлая тема'}>
      <IconButton aria-label={next === 'dark' ? 'Включить тёмную тему' : 'Включить светлую тему'} onClick={() => setChoice(next)}>
        {mode === 'dark' ? <LightModeOutlined /> : <DarkModeOutlined />}
      </IconButton>
    </Hint>
  );
}

const PageFallback = () => (
  <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
    <CircularProgress aria-label="Загрузка…" />
  </Box>
);

/** SPEC.md section 2: admin app bar, app bar (hidden inside Telegram), main content; the page fills the main content. */
export function AppShell({ children }: { children: ReactNode }) {
  const { isTelegram } = useTelegram();
  const { isSignedIn, readFailed } = useUser();
  const [pathname] = useLocation();
  const main = useRef<HTMLElement>(null);
  const brand = useBrandName();
  usePageChange(main);
  return (
    <Box sx={{ minHeight: '100dvh', display: 'flex', flexDirection: 'column' }}>
      <AdminAppBar />
      {!isTelegram && (
        <AppBar position="sticky" color="default" elevation={0} sx={{ borderBottom: 1, borderColor: 'divider' }} data-view="app-bar">
          <Toolbar sx={{ gap: 1 }}>
            <Typography component={RouterLink} to="/" variant="h6" sx={{ color: 'inherit', textDecoration: 'none', fontWeight: 700, flexGrow: 1 }}>
              {brand}
            </Typography>
            {/* Live updates: a dot while connected, the Russian error text when they fail. */}
            <RealtimeIndicator />
            <ThemeToggle />
            <UserMenu />
          </Toolbar>
        </AppBar>
      )}
      <Container ref={main} tabIndex={-1} component="main" maxWidth="md" sx={{ flexGrow: 1, py: 3, outline: 'none' }} data-view="main-content">
        <OfflineNotice />
        {/* A page that fails (its chunk would not load, a bug) says so under the app bar; another page clears it. */}
        <ErrorBoundary resetKey={pathname} fallback={(chunk) => <ErrorNotice chunk={chunk} />}>
          <Suspense fallback={<PageFallback />}>{children}</Suspense>
        </ErrorBoundary>
      </Container>
      {/* The profile says a failed read of the user with «Повторить» and keeps «Выйти». */}
      <Footer profile={isTelegram && (isSignedIn || readFailed)} />
      <GlobalDialogs />
    </Box>
  );
}
