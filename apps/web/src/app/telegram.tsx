import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { deferred } from '../components/deferred';
import { useWebApp } from '../features/auth/api/web-app';
import { ApiError, tokenStore } from '../lib/api-client';
import { historyIndex } from '../lib/history';
import { useUser } from '../lib/session';
import { useUi } from '../lib/ui-store';
import {
  declinedTelegramSwitch,
  declineTelegramSwitch,
  endSelfSignIn,
  isTelegramLaunch,
  isTelegramSessionOf,
  launchTheme,
  launchUser,
  loadTelegram,
  rememberTelegramSession,
  type TelegramEnv,
  type TelegramTheme,
} from '../lib/telegram';
import { closeTopDialog, useDialogOpen, useUnsavedInputs } from '../lib/telegram-back';

const SwitchUserDialog = deferred(() => import('./telegram-switch-dialog'));

const REOPEN = 'Закройте и откройте приложение заново';
/** How long a failed Telegram sign-in is said: it names what to do, which takes more than the usual 2 s to read. */
const SIGN_IN_FAILURE_MS = 8_000;

/**
 * Why a mini app sign-in failed, and what helps. Launch data signs in once (the server refuses it
 * again as used), and Telegram gives new data only to a new launch: after a lost answer or a 5xx
 * the data may already be spent, so it is not sent again; a refusal of the data itself (stale,
 * used, not Telegram's) is cured the same way. Other refusals (a blocked account, too many tries)
 * are the server's own words.
 */
function signInFailure(err: unknown): string {
  if (!(err instanceof ApiError) || err.status === 0) return `нет связи с сервером. ${REOPEN}`;
  if (err.status >= 500) return `сервис не ответил. ${REOPEN}`;
  // The server's reason (stale, already used), without its «Попробуйте войти ещё раз»: this data will not do again.
  if (err.status === 401) return `${afterColon(/^[^.]*\./.exec(err.message)?.[0] ?? `${err.message}.`)} ${REOPEN}`;
  return afterColon(err.message);
}

/** The server's sentence after «Не удалось войти через Telegram:», from a small letter (a name such as «Discord» or «IP» stays). */
const afterColon = (sentence: string) => (/^[А-ЯЁ][а-яё]/.test(sentence) ? sentence.charAt(0).toLocaleLowerCase('ru') + sentence.slice(1) : sentence);

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
  // Telegram's colours from the launch parameters from the first render on, not only once the SDK has loaded.
  const [theme, setTheme] = useState<TelegramTheme | null>(() => (isTelegram ? launchTheme() : null));
  useEffect(() => {
    if (!isTelegram) return;
    let off = () => {};
    let cancelled = false;
    void loadTelegram().then((e) => {
      if (cancelled) return;
      // Unusable launch parameters: the app behaves as in a browser, with its own colours (and signs in by no launch data).
      if (!e) {
        endSelfSignIn();
        return setTheme(null);
      }
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
 * Inside Telegram: signs in with the mini app's initData (without asking when nobody is signed in,
 * after asking when someone else is), shows Telegram's back button off the root, and makes it go
 * one step back in history, or home when there is none. While a dialog is open the back button
 * shows on the root too and closes the dialog, and Telegram asks before closing the mini app (also
 * while a field outside a dialog holds typed text: useUnsavedInput).
 */
export function TelegramBridge() {
  const { env } = useTelegram();
  const { mutateAsync: signIn } = useWebApp();
  const { user, isPending, readFailed } = useUser();
  const [pathname, navigate] = useLocation();
  const [ask, setAsk] = useState<{ id: string; name: string; current: string } | null>(null);
  const decided = useRef(false);

  const snackbar = useUi((s) => s.showSnackbar);
  const signInAs = useCallback(
    (initData: string, telegramId: string | undefined) => {
      // The browser contacts no server while it says it is offline: this launch data is still unused.
      const offline = navigator.onLine === false;
      signIn(initData)
        .then((auth) => {
          if (telegramId) rememberTelegramSession(telegramId, auth.access_token);
          endSelfSignIn();
        })
        .catch((err: unknown) => {
          // The visitor stays as they were (the usual sign-in pages still work), told why.
          if (offline && err instanceof ApiError && err.status === 0) {
            snackbar('Не удалось войти через Telegram: нет связи с сервером. Войдём, когда связь появится', 'error');
            const retry = () => {
              window.removeEventListener('online', retry);
              if (!tokenStore.get()) signInAs(initData, telegramId);
            };
            window.addEventListener('online', retry);
            return;
          }
          // Long enough to read what to do («Закройте и откройте приложение заново»), not SPEC's 2 s; the
          // signed-out screen then says it for good (REOPEN_TO_SIGN_IN).
          endSelfSignIn();
          snackbar(`Не удалось войти через Telegram: ${signInFailure(err)}`, 'error', SIGN_IN_FAILURE_MS);
        });
    },
    [signIn, snackbar],
  );

  useEffect(() => {
    const initData = env?.initDataRaw;
    // Nothing to sign in with: the signed-out screens say how to get launch data (a new launch).
    if (env && !initData) endSelfSignIn();
    if (!initData || isPending || decided.current) return;
    const token = tokenStore.get();
    // A token is held but whose it is is not known yet (`readFailed`: a 5xx, no connection): decided once a read
    // («Повторить», a refocus) finds the user, or its 401 drops the token and the launch data signs in (`user`
    // stays null then: the change of `readFailed` runs this again).
    if (token && (readFailed || !user)) return;
    decided.current = true;
    const who = launchUser(initData);
    if (!token) return signInAs(initData, who?.id);
    // Someone is signed in: the same Telegram user's session stays; anyone else is replaced only if the player says so.
    endSelfSignIn();
    if (!user || !who || isTelegramSessionOf(who.id, token) || declinedTelegramSwitch(who.id)) return;
    setAsk({ id: who.id, name: who.name, current: user.name });
  }, [env, isPending, user, readFailed, signInAs]);

  // A store dialog whose code is still loading counts too: it is on its way to the screen.
  const storeDialog = useUi((s) => s.dialog.name !== 'none');
  const inDialog = useDialogOpen() || storeDialog;
  useEffect(() => {
    env?.setBackVisible(inDialog || pathname !== '/');
  }, [env, pathname, inDialog]);

  // Typed text outside a dialog (a gift code, a nick being changed) is asked about too.
  const unsaved = useUnsavedInputs();
  useEffect(() => {
    env?.setClosingConfirmation(inDialog || unsaved);
  }, [env, inDialog, unsaved]);

  useEffect(() => {
    if (!env) return;
    return env.onBack(() => {
      // The dialog's own close keeps or renews what it should (a money form's key after a lost answer).
      if (closeTopDialog()) return;
      // A store dialog with nothing on screen yet has no state of its own to keep.
      const ui = useUi.getState();
      if (ui.dialog.name !== 'none') return ui.closeDialog();
      // The app numbers the entries it pushes; 0 is where the mini app was opened.
      if (historyIndex() > 0) window.history.back();
      else navigate('/', { replace: true });
    });
  }, [env, navigate]);

  return (
    <SwitchUserDialog
      active={ask !== null}
      open={ask !== null}
      telegramName={ask?.name ?? ''}
      currentName={ask?.current ?? ''}
      onConfirm={() => {
        if (ask && env?.initDataRaw) signInAs(env.initDataRaw, ask.id);
        setAsk(null);
      }}
      onCancel={() => {
        if (ask) declineTelegramSwitch(ask.id);
        setAsk(null);
      }}
    />
  );
}
