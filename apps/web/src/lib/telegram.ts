/**
 * The Telegram mini app environment. Telegram's clients pass launch parameters in the URL hash
 * (tgWebAppData, tgWebAppPlatform, tgWebAppThemeParams…); the SDK keeps them in sessionStorage
 * so reloads and route changes inside the mini app still know. The SDK itself is loaded only
 * on a Telegram launch, so an ordinary visitor never downloads it.
 */

import { useSyncExternalStore } from 'react';

export interface TelegramTheme {
  isDark: boolean;
  /** The page (MUI's background.default). */
  bg?: string;
  /** Cards, dialogs and menus on it (MUI's background.paper). */
  paper?: string;
  text?: string;
  hint?: string;
  primary?: string;
  /** Text on the primary colour (Telegram's button_text_color). */
  primaryText?: string;
}

/** The theme parameters Telegram passes (by the SDK's names); a client may leave any out. */
export interface TelegramThemeParams {
  bgColor?: string;
  secondaryBgColor?: string;
  sectionBgColor?: string;
  textColor?: string;
  hintColor?: string;
  buttonColor?: string;
  buttonTextColor?: string;
}

const sameColor = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Our colours from Telegram's, laid out as Telegram's own settings screens are: the page is
 * secondary_bg_color and the sections on it section_bg_color, each falling back to bg_color (older
 * clients lack one or both). When that leaves cards the page's own colour, another of the
 * backgrounds Telegram gave is used for them if one differs, so cards still stand out.
 */
export function telegramTheme(isDark: boolean, p: TelegramThemeParams): TelegramTheme {
  const bg = p.secondaryBgColor ?? p.bgColor;
  let paper = p.sectionBgColor ?? p.bgColor;
  if (bg && paper && sameColor(bg, paper)) {
    paper = [p.bgColor, p.sectionBgColor, p.secondaryBgColor].find((c) => c !== undefined && !sameColor(c, bg)) ?? paper;
  }
  return { isDark, bg, paper, text: p.textColor, hint: p.hintColor, primary: p.buttonColor, primaryText: p.buttonTextColor };
}

/** The SDK's test for a dark background (its themeParams.isDark): none at all, or a brightness under 120 of 255. */
export function isDarkColor(color: string | undefined): boolean {
  const hex = color && /^#([\da-f]{3}|[\da-f]{6})$/i.exec(color)?.[1];
  if (!hex) return !color;
  const full = hex.length === 3 ? hex.replace(/./g, '$&$&') : hex;
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  return Math.sqrt(0.299 * r! * r! + 0.587 * g! * g! + 0.114 * b! * b!) < 120;
}

/**
 * Telegram's theme without the SDK, for the first render (else the mini app flashes the app's own
 * colours until the SDK has loaded): the SDK's saved copy from earlier in this session (it follows a
 * change of Telegram's theme), else the launch parameters in the hash, else the SDK's saved copy of
 * those. index.html's inline script reads the first two the same way for the first paint.
 */
export function launchTheme(): TelegramTheme | null {
  try {
    const fromLaunch = (query: string | null | undefined) => (query ? new URLSearchParams(query).get('tgWebAppThemeParams') : null);
    const json =
      sessionStorage.getItem('tapps/themeParams') ??
      fromLaunch(window.location.hash.slice(1)) ??
      fromLaunch(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as string | null);
    const p = JSON.parse(json ?? 'null') as Record<string, unknown> | null;
    if (!p || typeof p !== 'object') return null;
    return themeOf(p);
  } catch {
    return null;
  }
}

/** Our theme from Telegram's theme parameters by Telegram's own names (bg_color…), as the launch hash and the SDK's state hold them. */
function themeOf(p: Record<string, unknown>): TelegramTheme {
  const c = (key: string) => (typeof p[key] === 'string' ? (p[key] as string) : undefined);
  return telegramTheme(isDarkColor(c('bg_color')), {
    bgColor: c('bg_color'),
    secondaryBgColor: c('secondary_bg_color'),
    sectionBgColor: c('section_bg_color'),
    textColor: c('text_color'),
    hintColor: c('hint_color'),
    buttonColor: c('button_color'),
    buttonTextColor: c('button_text_color'),
  });
}

/**
 * The CSS variables the SDK keeps up to date with the safe areas Telegram reports (Bot API 8.0):
 * the device's (notch, home indicator) and, within it, the room Telegram's own controls take in
 * full screen. The SDK's own names (`--tg-viewport-safe-area-inset-top`…); app/theme.ts reads
 * them, with 0px where they are not set (outside Telegram, older clients).
 */
export const SAFE_AREA_VARS = {
  safeAreaInsetTop: '--tg-viewport-safe-area-inset-top',
  safeAreaInsetRight: '--tg-viewport-safe-area-inset-right',
  safeAreaInsetBottom: '--tg-viewport-safe-area-inset-bottom',
  safeAreaInsetLeft: '--tg-viewport-safe-area-inset-left',
  contentSafeAreaInsetTop: '--tg-viewport-content-safe-area-inset-top',
  contentSafeAreaInsetRight: '--tg-viewport-content-safe-area-inset-right',
  contentSafeAreaInsetBottom: '--tg-viewport-content-safe-area-inset-bottom',
  contentSafeAreaInsetLeft: '--tg-viewport-content-safe-area-inset-left',
} as const;

export interface TelegramEnv {
  /** The raw initData string to send to /api/web_app. */
  initDataRaw: string | null;
  theme: TelegramTheme;
  /** Subscribes to the back button; returns the unsubscribe function. */
  onBack(cb: () => void): () => void;
  setBackVisible(visible: boolean): void;
  /** Telegram asks before closing the mini app (its header's «Закрыть», a swipe down). */
  setClosingConfirmation(on: boolean): void;
  /** Subscribes to theme changes (the user switched Telegram's theme). */
  onThemeChange(cb: (theme: TelegramTheme) => void): () => void;
  /** Asks Telegram to download a file (Bot API 8.0); false when this client cannot. */
  downloadFile(url: string, fileName: string): boolean;
  /** Opens a t.me link inside Telegram (the bot's chat) rather than as a web page; false when this client cannot. */
  openTelegramLink(url: string): boolean;
}

const STORAGE_KEY = 'tapps/launchParams';

/**
 * Telegram's clients give the page a way to talk to them: the mobile and desktop apps inject
 * `window.TelegramWebviewProxy`, Windows Phone `window.external.notify`, and Telegram Web runs the
 * mini app in its iframe (the CSP's frame-ancestors lets no other site frame us). An ordinary tab
 * has none of them, so launch data pasted into its URL is ignored (never sent to the server).
 */
export function hasTelegramBridge(): boolean {
  const w = window as unknown as { TelegramWebviewProxy?: { postEvent?: unknown }; external?: { notify?: unknown } };
  if (typeof w.TelegramWebviewProxy?.postEvent === 'function') return true;
  if (typeof w.external?.notify === 'function') return true;
  try {
    return window.self !== window.top;
  } catch {
    return true; // a cross-origin parent: Telegram Web
  }
}

/** A cheap check that needs no SDK: inside a Telegram client, with launch parameters in the hash or kept from this session. */
export function isTelegramLaunch(): boolean {
  try {
    if (!hasTelegramBridge()) return false;
    return /(?:^#|[#&?])tgWebAppData=/.test(window.location.hash) || sessionStorage.getItem(STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}

/**
 * How a player signed out inside the mini app (stale launch data, «Выйти») gets back in: Telegram gives new
 * launch data only to a new launch, and its login page would ask for a phone inside the mini app's webview.
 */
export const REOPEN_TO_SIGN_IN = 'Закройте и откройте приложение заново — войдём через Telegram сами';

/**
 * Whether the mini app is done signing in by itself with its launch data (app/telegram.tsx's TelegramBridge):
 * signed in, refused, or nothing to sign in with. Until then a signed-out screen waits rather than say «reopen».
 */
let selfSignInOver = false;
const selfSignInListeners = new Set<() => void>();
export function endSelfSignIn(over = true) {
  if (selfSignInOver === over) return;
  selfSignInOver = over;
  for (const l of selfSignInListeners) l();
}
const subscribeSelfSignIn = (l: () => void) => {
  selfSignInListeners.add(l);
  return () => void selfSignInListeners.delete(l);
};
/** True once the mini app's own sign-in is over (see endSelfSignIn); meaningful only on a Telegram launch. */
export const useSelfSignInOver = () => useSyncExternalStore(subscribeSelfSignIn, () => selfSignInOver);

/** The Telegram user the launch data names (unverified: only to ask the player; the server checks the signature). */
export function launchUser(initDataRaw: string): { id: string; name: string } | null {
  try {
    const u = JSON.parse(new URLSearchParams(initDataRaw).get('user') ?? 'null') as { id?: unknown; first_name?: unknown; last_name?: unknown; username?: unknown } | null;
    if (!u || (typeof u.id !== 'number' && typeof u.id !== 'string')) return null;
    const name = [u.first_name, u.last_name].filter((x) => typeof x === 'string' && x).join(' ') || (typeof u.username === 'string' ? u.username : '');
    return { id: String(u.id), name: name || 'пользователь Telegram' };
  } catch {
    return null;
  }
}

const RAW_INIT_DATA_KEY = 'aw/tgInitData';

/** The empty `signature` letSdkParse adds to an older client's data: never in data Telegram signed. */
const ADDED_SIGNATURE = /&signature=$/;

/**
 * The launch data exactly as Telegram signed it, from the hash or kept from this session. After a reload
 * the hash holds letSdkParse's copy (its empty `signature` added); the server would refuse that copy.
 */
function rawInitData(): string | null {
  try {
    const raw = new URLSearchParams(window.location.hash.slice(1)).get('tgWebAppData')?.replace(ADDED_SIGNATURE, '');
    if (raw) {
      sessionStorage.setItem(RAW_INIT_DATA_KEY, raw);
      return raw;
    }
    return sessionStorage.getItem(RAW_INIT_DATA_KEY);
  } catch {
    return null;
  }
}

/**
 * Older Telegram clients send launch data without `signature`, which the SDK's parser requires, and
 * it then refuses to start. The SDK gets a copy with an empty one (it checks nothing with it); the
 * server still gets the data exactly as signed (`rawInitData`).
 */
function letSdkParse(raw: string | null) {
  if (!raw || /(?:^|&)signature=/.test(raw)) return;
  const hash = new URLSearchParams(window.location.hash.slice(1));
  if (!hash.has('tgWebAppData')) return;
  hash.set('tgWebAppData', `${raw}&signature=`);
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}#${hash.toString()}`);
}

let envPromise: Promise<TelegramEnv | null> | null = null;

/** Initialises the SDK once: ready, expand, back button, closing confirmation, theme. Null outside Telegram. */
export function loadTelegram(): Promise<TelegramEnv | null> {
  if (!isTelegramLaunch()) return Promise.resolve(null);
  const raw = rawInitData();
  letSdkParse(raw);
  envPromise ??= import('@tma.js/sdk-react').then((sdk) => {
    try {
      sdk.init();
    } catch {
      // Launch parameters present but unusable (e.g. a stale copy): behave as a normal browser.
      return null;
    }
    const mount = (fn: { isAvailable(): boolean } & (() => void)) => {
      if (fn.isAvailable()) fn();
    };
    mount(sdk.backButton.mount);
    mount(sdk.closingBehavior.mount);
    mount(sdk.themeParams.mount);
    mount(sdk.miniApp.mount);
    if (sdk.miniApp.ready.isAvailable()) sdk.miniApp.ready();
    if (sdk.viewport.expand.isAvailable()) sdk.viewport.expand();
    // The safe areas: the SDK asks Telegram for them as it mounts the viewport and keeps the CSS
    // variables in step with Telegram's later reports (rotation, full screen). A client that never
    // answers leaves them unset: no padding, as before.
    if (sdk.viewport.mount.isAvailable()) void Promise.resolve(sdk.viewport.mount()).catch(() => {});
    if (sdk.viewport.bindCssVars.isAvailable() && !sdk.viewport.isCssVarsBound()) {
      sdk.viewport.bindCssVars((key) => (key in SAFE_AREA_VARS ? SAFE_AREA_VARS[key as keyof typeof SAFE_AREA_VARS] : null));
    }

    const tp = sdk.themeParams;
    const readTheme = (): TelegramTheme =>
      telegramTheme(tp.isDark(), {
        bgColor: tp.bgColor(),
        secondaryBgColor: tp.secondaryBgColor(),
        sectionBgColor: tp.sectionBgColor(),
        textColor: tp.textColor(),
        hintColor: tp.hintColor(),
        buttonColor: tp.buttonColor(),
        buttonTextColor: tp.buttonTextColor(),
      });
    // Telegram's header and the overscroll behind the page in the page's colour, as on its own
    // settings screens (by key, so both follow a change of Telegram's theme).
    if (tp.secondaryBgColor()) {
      for (const set of [sdk.miniApp.setHeaderColor, sdk.miniApp.setBgColor]) {
        try {
          if (set.isAvailable()) set('secondary_bg_color');
        } catch {
          // An older client: its own colours stay.
        }
      }
    }
    let initDataRaw: string | null = raw;
    try {
      initDataRaw ??= sdk.retrieveRawInitData() ?? null;
    } catch {
      initDataRaw = null;
    }
    return {
      initDataRaw,
      theme: readTheme(),
      onBack: (cb) => (sdk.backButton.onClick.isAvailable() ? sdk.backButton.onClick(cb) : () => {}),
      setBackVisible(visible) {
        const fn = visible ? sdk.backButton.show : sdk.backButton.hide;
        if (fn.isAvailable()) fn();
      },
      setClosingConfirmation(on) {
        const fn = on ? sdk.closingBehavior.enableConfirmation : sdk.closingBehavior.disableConfirmation;
        if (fn.isAvailable()) fn();
      },
      // From the new state the SDK hands over: its per-colour getters (readTheme) update only after this
      // callback, so reading them here gave the theme before the change (night mode stayed on in a light Telegram).
      onThemeChange: (cb) => tp.state.sub((state) => cb(themeOf(state))),
      downloadFile(url, fileName) {
        if (!sdk.downloadFile.isAvailable()) return false;
        downloadOrOpen(
          () => sdk.downloadFile(url, fileName),
          () => window.open(url, '_blank'),
          (err) => err instanceof sdk.AccessDeniedError,
        );
        return true;
      },
      openTelegramLink(url) {
        if (!sdk.openTelegramLink.isAvailable()) return false;
        try {
          sdk.openTelegramLink(url);
          return true;
        } catch {
          return false;
        }
      },
    };
  });
  return envPromise;
}

const TG_SESSION_KEY = 'aw/tgSession';
const TG_DECLINED_KEY = 'aw/tgDeclined';

/** Remembers that the stored session came from this Telegram user's launch data (tied to the token, so any other sign-in forgets it). */
export function rememberTelegramSession(telegramId: string, token: string) {
  try {
    localStorage.setItem(TG_SESSION_KEY, JSON.stringify({ tg: telegramId, t: token.slice(-16) }));
  } catch {
    // Storage unavailable: the player is asked next time, nothing worse.
  }
}

/** True when `token` is the session a launch by this Telegram user started. */
export function isTelegramSessionOf(telegramId: string, token: string): boolean {
  try {
    const s = JSON.parse(localStorage.getItem(TG_SESSION_KEY) ?? 'null') as { tg?: string; t?: string } | null;
    return s?.tg === telegramId && s.t === token.slice(-16);
  } catch {
    return false;
  }
}

/** The player chose to stay signed in as someone else for this Telegram user, in this tab. */
export const declinedTelegramSwitch = (telegramId: string) => {
  try {
    return sessionStorage.getItem(TG_DECLINED_KEY) === telegramId;
  } catch {
    return false;
  }
};
export const declineTelegramSwitch = (telegramId: string) => {
  try {
    sessionStorage.setItem(TG_DECLINED_KEY, telegramId);
  } catch {
    // nothing to keep
  }
};

/**
 * Telegram's download prompt: the player's «Отмена» (the SDK's AccessDeniedError) ends it there; only
 * a client that could not ask (an old client, a failed request) opens the link in the browser instead.
 * Before, a cancel opened the file anyway and spent its one-time link.
 */
export function downloadOrOpen(download: () => unknown, open: () => void, refusedByPlayer: (err: unknown) => boolean) {
  void Promise.resolve()
    .then(download)
    .catch((err: unknown) => {
      if (!refusedByPlayer(err)) open();
    });
}
