// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Route, Switch } from 'wouter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../test/dom';
import { UserMenu } from './user-menu';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const item = (text: string) => [...document.querySelectorAll<HTMLElement>('[role="menuitem"]')].find((b) => b.textContent === text);
const button = (text: string) => [...document.querySelectorAll<HTMLElement>('button, a')].find((b) => b.textContent === text);
const profileIcon = () => document.querySelector<HTMLButtonElement>('[aria-label="Профиль"]');

let root: Root | null = null;
afterEach(async () => {
  await cleanup(root);
  root = null;
  window.history.replaceState(null, '', '/');
});

describe('the app bar’s user menu when the user could not be read', () => {
  it('/api/user answering 503 (after its retries) with a token held offers the profile menu with «Профиль» and «Выйти», not «Войти»; «Выйти» signs out', async () => {
    // Review finding: the menu rendered nothing when the read failed, so in a browser (not Telegram) a page other than
    // the profile offered no way to sign out, nor to reach the profile.
    localStorage.setItem('access_token', 'token');
    window.history.replaceState(null, '', '/');
    const fetch = vi.fn(async (url: string) => {
      if (url === '/api/user') return answer(503, { message: 'Сервис временно недоступен' });
      if (url === '/api/logout') return answer(503, { message: 'Сервис временно недоступен' });
      return answer(404, { message: 'Не найдено' });
    });
    vi.stubGlobal('fetch', fetch);
    // The app's retries (two) of a 5xx, without their waits.
    const qc = new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: 1 }, mutations: { networkMode: 'always' } } });
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
            createElement(Route, { path: '/' }, createElement('h1', null, 'Кошелёк адены')),
            createElement(Route, { path: '/profile' }, createElement('h1', null, 'Профиль')),
            createElement(Route, { path: '/auth/login_methods/email' }, createElement('h1', null, 'Вход')),
          ),
        ),
      ),
    );
    for (let i = 0; i < 100 && !profileIcon(); i++) await settle();
    const userReads = () => fetch.mock.calls.filter(([u]) => u === '/api/user').length;
    expect(userReads()).toBe(3);
    expect(profileIcon()).not.toBeNull();
    expect(button('Войти')).toBeUndefined();

    // The menu loads on its first opening; it has no name to show, and still leads to the profile.
    await act(async () => profileIcon()!.click());
    for (let i = 0; i < 100 && !item('Выйти'); i++) await settle();
    expect(item('Профиль')).toBeDefined();
    await act(async () => item('Профиль')!.click());
    await settle();
    expect(window.location.pathname).toBe('/profile');

    await act(async () => profileIcon()!.click());
    for (let i = 0; i < 100 && !item('Выйти'); i++) await settle();
    await act(async () => item('Выйти')!.click());
    await settle();
    expect(fetch.mock.calls.some(([u]) => u === '/api/logout')).toBe(true);
    expect(localStorage.getItem('access_token')).toBeNull();
    expect(button('Войти')).toBeDefined();
    expect(profileIcon()).toBeNull();
  });
});
