// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { MUTATION_DEFAULTS } from '../lib/query-client';
import { endSelfSignIn, type TelegramEnv, useSelfSignInOver } from '../lib/telegram';
import { useUi } from '../lib/ui-store';
import { answer, settle } from '../test/dom';
import { TelegramBridge, TelegramProvider } from './telegram';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const { INIT_DATA } = vi.hoisted(() => ({
  INIT_DATA: `auth_date=1800000000&user=${encodeURIComponent(JSON.stringify({ id: 777000111, first_name: 'Ася' }))}&hash=abc`,
}));

// A Telegram launch without the SDK: the launch data the mini app was opened with, and no-op buttons.
vi.mock('../lib/telegram', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/telegram')>();
  const env: TelegramEnv = {
    initDataRaw: INIT_DATA,
    theme: { isDark: false },
    onBack: () => () => {},
    setBackVisible: () => {},
    setClosingConfirmation: () => {},
    onThemeChange: () => () => {},
    downloadFile: () => false,
    openTelegramLink: () => false,
  };
  return { ...actual, isTelegramLaunch: () => true, loadTelegram: async () => env };
});

const signedIn = () =>
  answer(200, {
    access_token: 'fresh-token',
    user: { id: 5, name: 'Ася', email: null, phone: null, admin: false, vip: false, vip_until: null, telegram_linked: true, created_at: '2026-11-01T00:00:00Z' },
  });
const snackbarText = () => useUi.getState().snackbar.text;

/** Whether the app's own sign-in with the launch data is over, as the signed-out screens see it (the latest render). */
let selfSignInOver: boolean | null = null;
function SelfSignInProbe() {
  selfSignInOver = useSelfSignInOver();
  return null;
}

describe('the mini app signs in once with its launch data', () => {
  let root: Root | null = null;
  let posts: number;
  let onLine: Mock<() => boolean> | null = null;

  beforeEach(() => {
    localStorage.clear();
    sessionStorage.clear();
    posts = 0;
    endSelfSignIn(false);
  });
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    onLine?.mockRestore();
    onLine = null;
    vi.unstubAllGlobals();
    vi.useRealTimers();
    useUi.getState().closeSnackbar();
    document.body.innerHTML = '';
  });

  /** Opens the mini app with nobody signed in; /api/web_app gets these answers in turn. */
  async function launch(answers: Array<() => Response>) {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (url !== '/api/web_app') return answer(401, { message: 'Нужно войти' });
        posts += 1;
        expect(JSON.parse(String(init.body))).toEqual({ init_data: INIT_DATA });
        const next = answers.shift();
        if (!next) throw new Error('a second sign-in with the same launch data');
        return next();
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: MUTATION_DEFAULTS } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root!.render(createElement(QueryClientProvider, { client: qc }, createElement(TelegramProvider, null, createElement(TelegramBridge), createElement(SelfSignInProbe)))),
    );
    await settle();
  }

  /** The connection comes back and the old five seconds pass: nothing may send the spent data again. */
  async function timePassesAndConnectionReturns() {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    await act(async () => {
      window.dispatchEvent(new Event('online'));
      vi.advanceTimersByTime(10_000);
    });
    vi.useRealTimers();
    await settle();
  }

  it('a sign-in whose answer was lost is not sent again (the server may have used the data): the player is told to reopen the app', async () => {
    await launch([
      () => {
        throw new TypeError('Failed to fetch');
      },
    ]);
    expect(posts).toBe(1);
    expect(snackbarText()).toBe('Не удалось войти через Telegram: нет связи с сервером. Закройте и откройте приложение заново');
    // Long enough to read what to do.
    expect(useUi.getState().snackbar.timeout).toBe(8_000);
    await timePassesAndConnectionReturns();
    expect(posts).toBe(1);
    expect(localStorage.getItem('access_token')).toBeNull();
  });

  it('a 5xx is not retried either: the sign-in may have gone through before it', async () => {
    await launch([() => answer(502, { message: 'Сервис временно недоступен' })]);
    expect(snackbarText()).toBe('Не удалось войти через Telegram: сервис не ответил. Закройте и откройте приложение заново');
    await timePassesAndConnectionReturns();
    expect(posts).toBe(1);
  });

  it('launch data the server has already used is answered with «close and open the app again», not «try again»', async () => {
    await launch([() => answer(401, { message: 'Эти данные входа Telegram уже использованы. Попробуйте войти ещё раз' })]);
    expect(snackbarText()).toBe('Не удалось войти через Telegram: эти данные входа Telegram уже использованы. Закройте и откройте приложение заново');
    // The signed-out screens now say it for good (not only the 8-second notice).
    expect(selfSignInOver).toBe(true);
    await timePassesAndConnectionReturns();
    expect(posts).toBe(1);
  });

  it('any other refusal of the server goes on after the colon from a small letter, as one sentence', async () => {
    await launch([() => answer(429, { message: 'Слишком много попыток входа. Попробуйте позже' })]);
    expect(snackbarText()).toBe('Не удалось войти через Telegram: слишком много попыток входа. Попробуйте позже');
  });

  it('opened offline, the data never left the phone: it signs in when the connection returns', async () => {
    onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    await launch([
      () => {
        throw new TypeError('Failed to fetch');
      },
      signedIn,
    ]);
    expect(snackbarText()).toBe('Не удалось войти через Telegram: нет связи с сервером. Войдём, когда связь появится');
    // Still to sign in by itself: no «reopen the app» meanwhile.
    expect(selfSignInOver).toBe(false);
    onLine.mockReturnValue(true);
    await act(async () => void window.dispatchEvent(new Event('online')));
    await settle();
    expect(posts).toBe(2);
    expect(localStorage.getItem('access_token')).toBe('fresh-token');
    expect(selfSignInOver).toBe(true);
  });
});

describe('the mini app opened while the held token cannot be read', () => {
  let root: Root | null = null;
  let posts: number;
  let qc: QueryClient;
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    vi.unstubAllGlobals();
    useUi.getState().closeSnackbar();
    document.body.innerHTML = '';
    localStorage.clear();
    sessionStorage.clear();
  });

  /** Opens the mini app holding an old token; `GET /api/user` gets these answers in turn, /api/web_app signs in. */
  async function launchHolding(userAnswers: Array<() => Response>) {
    localStorage.setItem('access_token', 'old-token');
    posts = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/web_app') {
          posts += 1;
          return signedIn();
        }
        if (url === '/api/user') return userAnswers.shift()!();
        return answer(404, { message: 'Не найдено' });
      }),
    );
    qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: MUTATION_DEFAULTS } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(TelegramProvider, null, createElement(TelegramBridge)))));
    await settle();
  }
  /** «Повторить»: the user is read again. */
  const retry = async () => {
    await act(async () => void (await qc.refetchQueries({ queryKey: ['user'] })));
    await settle();
  };

  it('a retry that finds the old token ended (401) signs in with the launch data, not leaving the player signed out inside Telegram', async () => {
    await launchHolding([() => answer(502, { message: 'Сервис временно недоступен' }), () => answer(401, { message: 'Нужно войти' })]);
    // Who holds the token is not known: nothing is decided yet, the old token is kept.
    expect(posts).toBe(0);
    expect(localStorage.getItem('access_token')).toBe('old-token');
    await retry();
    expect(posts).toBe(1);
    expect(localStorage.getItem('access_token')).toBe('fresh-token');
    // Signed in again by itself: no «Сеанс завершён. Войдите снова» (a browser tab's notice) over it.
    expect(useUi.getState().snackbar.open).toBe(false);
  });

  it('signed in, then its session ended elsewhere: the player is told why, as its launch data served once', async () => {
    // diff review, 2026-11-29: the notice was kept for browser tabs, and a mini app whose session «Завершить» ended
    // on another device while it slept was signed out with no word of why.
    const asya = { id: 5, name: 'Ася', email: null, phone: null, admin: false, vip: false, vip_until: null, telegram_linked: true, created_at: '2026-11-01T00:00:00Z' };
    await launchHolding([() => answer(200, asya), () => answer(401, { message: 'Нужно войти' })]);
    expect(localStorage.getItem('access_token')).toBe('old-token');
    await retry();
    expect(localStorage.getItem('access_token')).toBeNull();
    expect(posts).toBe(0);
    expect(useUi.getState().snackbar).toMatchObject({ open: true, text: 'Сеанс завершён. Войдите снова' });
  });

  it('a retry that finds another account asks «Войти как …?»', async () => {
    const other = { id: 9, name: 'Борис', email: 'b@example.com', phone: null, admin: false, vip: false, vip_until: null, telegram_linked: false, created_at: '2026-11-01T00:00:00Z' };
    await launchHolding([() => answer(502, { message: 'Сервис временно недоступен' }), () => answer(200, other)]);
    expect(document.querySelector('[data-testid="telegram-switch-dialog"]')).toBeNull();
    await retry();
    // The dialog's code loads the first time it is wanted.
    for (let i = 0; i < 100 && !document.body.textContent?.includes('Войти как'); i++) await settle();
    expect(document.body.textContent).toContain('Войти как Ася?');
    expect(document.body.textContent).toContain('Сейчас вы вошли как Борис');
    expect(posts).toBe(0);
  });
});
