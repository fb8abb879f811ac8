import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { QueryClientProvider } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';
import { Router } from 'wouter';
import { followOtherTabs, userQueryOptions } from '../lib/session';
import { RealtimeProvider } from './realtime/realtime-provider';
import { gamesserversQueryOptions } from '../lib/gamesservers';
import { publicConfigQueryOptions } from '../lib/public-config';
import { useIndexedLocation } from '../lib/history';
import { createQueryClient } from '../lib/query-client';
import { TelegramBridge, TelegramProvider, useTelegram } from './telegram';
import { buildTheme, readThemeChoice, THEME_KEY, type ThemeChoice } from './theme';

const queryClient = createQueryClient();
// From now, not from the first render: a sign-in in another tab during the first screen's reads counts too.
followOtherTabs(queryClient);

/**
 * Asks for the first screen's own data (who is signed in, the game servers, the brand) and resolves when it
 * has come or after `maxWaitMs`, whichever is first. Rendering after it, the first render (a
 * transition, in slices) already has the data; otherwise each answer re-renders the page in one
 * uninterruptible piece, which a slow phone feels (TanStack Query's updates are synchronous).
 */
export function prefetchFirstScreen(maxWaitMs: number): Promise<void> {
  // The public config too: the header and the tab title name the service by it (BRAND_NAME), which should not swap after the first paint.
  const data = Promise.all([
    queryClient.prefetchQuery(userQueryOptions()),
    queryClient.prefetchQuery(gamesserversQueryOptions()),
    queryClient.prefetchQuery(publicConfigQueryOptions()),
  ]);
  return Promise.race([data.then(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, maxWaitMs))]);
}

interface ColorModeValue {
  choice: ThemeChoice;
  mode: 'light' | 'dark';
  setChoice(choice: ThemeChoice): void;
}
const ColorModeContext = createContext<ColorModeValue | null>(null);
export const useColorMode = () => useContext(ColorModeContext)!;

/**
 * Inside Telegram, Telegram's colour scheme and colours. Elsewhere a saved choice wins;
 * otherwise the system preference, followed live.
 */
function ColorModeProvider({ children }: { children: ReactNode }) {
  const [choice, setChoiceState] = useState<ThemeChoice>(readThemeChoice);
  const prefersDark = useMediaQuery('(prefers-color-scheme: dark)', { noSsr: true });
  const { theme: tg } = useTelegram();
  const mode = tg ? (tg.isDark ? 'dark' : 'light') : choice === 'system' ? (prefersDark ? 'dark' : 'light') : choice;
  const theme = useMemo(() => buildTheme(mode, tg ?? undefined), [mode, tg]);
  const value = useMemo<ColorModeValue>(
    () => ({
      choice,
      mode,
      setChoice(next) {
        if (next === 'system') localStorage.removeItem(THEME_KEY);
        else localStorage.setItem(THEME_KEY, next);
        setChoiceState(next);
      },
    }),
    [choice, mode],
  );
  return (
    <ColorModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </ColorModeContext.Provider>
  );
}

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <TelegramProvider>
        <ColorModeProvider>
          <Router hook={useIndexedLocation}>
            <TelegramBridge />
            <RealtimeProvider>{children}</RealtimeProvider>
          </Router>
        </ColorModeProvider>
      </TelegramProvider>
    </QueryClientProvider>
  );
}
