import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { useWebApp } from '../features/auth/api/web-app';
import { historyIndex } from '../lib/history';
import { isTelegramLaunch, loadTelegram, type TelegramEnv, type TelegramTheme } from '../lib/telegram';

interface TelegramValue {
  /** True from the first render on a Telegram launch, before the SDK has loaded. */
  isTelegram: boolean;
  env: TelegramEnv | null;
  theme: TelegramTheme | null;
}

const TelegramContext = createContext<TelegramValue>({ isTelegram: false, env: null, theme: null });
export const useTelegram = () => useContext(TelegramContext);

export function TelegramProvider({ children }: { children: ReactNode }) {
  const [isTelegram] = useState(isTelegramLaunch);
  const [env, setEnv] = useState<TelegramEnv | null>(null);
  const [theme, setTheme] = useState<TelegramTheme | null>(null);
  useEffect(() => {
    if (!isTelegram) return;
    let off = () => {};
    let cancelled = false;
    void loadTelegram().then((e) => {
      if (cancelled || !e) return;
      setEnv(e);
      setTheme(e.theme);
      off = e.onThemeChange(setTheme);
    });
    return () => {
      cancelled = true;
      off();
    };
  }, [isTelegram]);
  return <TelegramContext.Provider value={{ isTelegram, env, theme }}>{children}</TelegramContext.Provider>;
}

/**
 * Inside Telegram: signs in with the mini app's initData without asking, shows Telegram's back
 * button off the root, and makes it go one step back in history, or home when there is none.
 */
export function TelegramBridge() {
  const { env } = useTelegram();
  const { mutateAsync: signIn } = useWebApp();
  const [pathname, navigate] = useLocation();

  useEffect(() => {
    if (!env?.initDataRaw) return;
    signIn(env.initDataRaw).catch(() => {
      // A refused initData (stale, or the bot is not configured) leaves the visitor signed out;
      // the usual sign-in pages still work.
    });
  }, [env, signIn]);

  useEffect(() => {
    env?.setBackVisible(pathname !== '/');
  }, [env, pathname]);

  useEffect(() => {
    if (!env) return;
    return env.onBack(() => {
      // The app numbers the entries it pushes; 0 is where the mini app was opened.
      if (historyIndex() > 0) window.history.back();
      else navigate('/', { replace: true });
    });
  }, [env, navigate]);

  return null;
}
