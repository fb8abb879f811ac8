// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Route, Switch } from 'wouter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UserMenu } from '../../components/layouts/user-menu';
import { nextAfterSignIn } from '../../features/auth/api/second-step';
import { answer, cleanup, playerUser, settle } from '../../test/dom';
import ProfileRoute from './profile';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const button = (text: string) => [...document.querySelectorAll('button, a')].find((b) => b.textContent === text) as HTMLElement | undefined;
const failed = () => document.querySelector('[data-testid="user-read-failed"]');

let root: Root | null = null;
afterEach(async () => {
  await cleanup(root);
  root = null;
  window.history.replaceState(null, '', '/');
});

/** The app bar's user menu and the profile route at /profile, with a stand-in sign-in page; `/api/user` answered by `user()`. */
async function openProfile(user: () => Response | Promise<Response>) {
  window.history.replaceState(null, '', '/profile');
  const fetch = vi.fn(async (url: string) => {
    if (url === '/api/user') return user();
    return answer(404, { message: 'Не найдено' });
  });
  vi.stubGlobal('fetch', fetch);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  root = createRoot(document.body.appendChild(document.createElement('div')));
  await act(async () =>
    root!.render(
      createElement(
        QueryClientProvider,
        { client: qc },
        createElement('header', null, createElement(UserMenu)),
        createElement(
          Switch,
          null,
          createElement(Route, { path: '/profile' }, createElement(ProfileRoute)),
          createElement(Route, { path: '/auth/login_methods/email' }, createElement('h1', null, 'Вход')),
        ),
      ),
    ),
  );
  await settle();
  return { userReads: () => fetch.mock.calls.filter(([u]) => u === '/api/user').length };
}

describe('the profile when the user could not be read', () => {
  it('/api/user answering 503 with a token held stays on /profile with the reason and «Повторить», which reads again and shows the profile; the app bar offers no «Войти»', async () => {
    // Review finding: a failed user read (a database outage) counted as signed out: /profile sent the player to the
    // sign-in page and the app bar offered «Войти», so a signed-in player signed in again (a second session).
    localStorage.setItem('access_token', 'token');
    let down = true;
    let gate: Promise<void> | null = null;
    const { userReads } = await openProfile(async () => {
      await gate;
      return down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, playerUser(false));
    });
    expect(window.location.pathname).toBe('/profile');
    expect(document.querySelector('h1')?.textContent).toBe('Профиль');
    expect(failed()?.textContent).toContain('Не удалось загрузить данные вашего аккаунта. Сервис временно недоступен');
    expect(button('Войти')).toBeUndefined();
    expect(button('Выйти')).toBeDefined();
    expect(localStorage.getItem('access_token')).toBe('token');

    // The re-read: the reason stays on show, «Повторить» off, until it answers.
    let release: () => void = () => {};
    gate = new Promise<void>((r) => (release = r));
    down = false;
    await act(async () => button('Повторить')!.click());
    await settle();
    expect(failed()?.textContent).toContain('Сервис временно недоступен');
    expect((button('Повторить') as HTMLButtonElement).disabled).toBe(true);
    await act(async () => release());
    await settle();
    expect(userReads()).toBe(2);
    expect(failed()).toBeNull();
    expect(window.location.pathname).toBe('/profile');
    expect(document.querySelector('article')?.textContent).toContain('Продавец');
    expect(document.querySelector('[aria-label="Профиль"]')).not.toBeNull();
  });

  it('no connection at all says so the same way, not «Войти»', async () => {
    localStorage.setItem('access_token', 'token');
    await openProfile(() => {
      throw new TypeError('Failed to fetch');
    });
    expect(window.location.pathname).toBe('/profile');
    expect(failed()?.textContent).toContain('Нет связи с сервером');
    expect(button('Войти')).toBeUndefined();
  });

  it('with no token it still goes to the sign-in page, and the app bar offers «Войти»', async () => {
    const { userReads } = await openProfile(() => answer(200, playerUser(false)));
    expect(userReads()).toBe(0);
    expect(window.location.pathname).toBe('/auth/login_methods/email');
    expect(document.querySelector('h1')?.textContent).toBe('Вход');
    expect(button('Войти')).toBeDefined();
  });

  it('signed out, /profile sends to the sign-in page and remembers it: signing in comes back to /profile, not to the wallet', async () => {
    // Review finding: the sellers' guide's «Создать ключ в профиле» pressed while signed out landed on / after sign-in.
    await openProfile(() => answer(200, playerUser(false)));
    expect(window.location.pathname).toBe('/auth/login_methods/email');
    expect(nextAfterSignIn({ access_token: 'new-token' } as Parameters<typeof nextAfterSignIn>[0])).toBe('/profile');
    // Used once: the next sign-in goes to the wallet.
    expect(nextAfterSignIn({ access_token: 'new-token' } as Parameters<typeof nextAfterSignIn>[0])).toBe('/');
  });

  it('«Выйти» on /profile sends to the sign-in page without remembering /profile: the next sign-in (maybe another person’s) goes to the wallet', async () => {
    // Review finding: the profile remembered itself on every render signed out, the one right after its own «Выйти» too.
    localStorage.setItem('access_token', 'token');
    await openProfile(() => answer(200, playerUser(false)));
    expect(document.querySelector('article')?.textContent).toContain('Продавец');
    const logout = [...document.querySelectorAll('article button')].find((b) => b.textContent === 'Выйти') as HTMLButtonElement;
    await act(async () => logout.click());
    await settle();
    expect(localStorage.getItem('access_token')).toBeNull();
    expect(window.location.pathname).toBe('/auth/login_methods/email');
    expect(nextAfterSignIn({ access_token: 'new-token' } as Parameters<typeof nextAfterSignIn>[0])).toBe('/');
  });

  it('a 401 (the session ended) signs out: the sign-in page, not the error', async () => {
    localStorage.setItem('access_token', 'token');
    await openProfile(() => answer(401, { message: 'Требуется вход' }));
    expect(window.location.pathname).toBe('/auth/login_methods/email');
    expect(failed()).toBeNull();
    expect(localStorage.getItem('access_token')).toBeNull();
  });
});
