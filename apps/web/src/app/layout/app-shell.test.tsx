// @vitest-environment happy-dom
import { act, type ComponentType, lazy } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Route, Switch } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '../../components/deferred';
import { answer, cleanup, settle } from '../../test/dom';
import { AppProvider } from '../provider';
import { AppShell } from './app-shell';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A page whose script is gone (a deploy) and would not load again within chunk-reload's minute, as Chrome reports it.
const GoneChunk = lazy<ComponentType>(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module: https://wallet.example/assets/profile-Dx1.js')));
function Buggy(): never {
  throw new Error('boom');
}
// A dialog whose chunk is gone too.
const GoneDialog = deferred<object>(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module: https://wallet.example/assets/dialog-Dx1.js')));

function App({ dialog = false }: { dialog?: boolean }) {
  return (
    <AppProvider>
      <AppShell>
        <Switch>
          <Route path="/">
            <h1>Кошелёк адены</h1>
            <GoneDialog active={dialog} />
          </Route>
          <Route path="/help">
            <h1>Помощь</h1>
          </Route>
          <Route path="/profile">
            <GoneChunk />
          </Route>
          <Route path="/admin/shift">
            <Buggy />
          </Route>
        </Switch>
      </AppShell>
    </AppProvider>
  );
}

let root: Root | null = null;
const spies: Array<{ mockRestore(): void }> = [];
const main = () => document.querySelector('main')!;
const go = (to: string) => act(async () => navigate(to));

async function open(path: string, dialog = false) {
  window.history.replaceState(null, '', path);
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => answer(401, { message: 'Нужно войти' })),
  );
  // The boundaries' catches are expected here: not logged (the app's root logs them).
  root = createRoot(document.body.appendChild(document.createElement('div')), { onCaughtError: () => {} });
  const render = (d: boolean) => act(async () => root!.render(<App dialog={d} />));
  await render(dialog);
  await settle();
  return { render };
}

beforeEach(() => {
  document.title = 'Адена Кошелёк';
});
afterEach(async () => {
  await cleanup(root);
  root = null;
  for (const spy of spies.splice(0)) spy.mockRestore();
  window.history.replaceState(null, '', '/');
});

describe('a page that fails does not blank the app', () => {
  it('a page chunk that will not load says «Не удалось загрузить страницу» with «Повторить» under the app bar and above the footer; another page clears it', async () => {
    const reload = vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    spies.push(reload);
    await open('/profile');
    expect(main().textContent).toContain('Не удалось загрузить страницу');
    expect(document.querySelector('[data-view="app-bar"]')).not.toBeNull();
    expect(document.querySelector('footer')).not.toBeNull();
    const retry = [...main().querySelectorAll('button')].find((b) => b.textContent === 'Повторить')!;
    await act(async () => retry.click());
    expect(reload).toHaveBeenCalledTimes(1);
    await go('/help');
    expect(main().textContent).not.toContain('Не удалось');
    expect(main().querySelector('h1')?.textContent).toBe('Помощь');
  });

  it('any other render error says «Что-то пошло не так»', async () => {
    await open('/admin/shift');
    expect(main().textContent).toContain('Что-то пошло не так');
    expect(document.querySelector('footer')).not.toBeNull();
    await go('/');
    expect(main().querySelector('h1')?.textContent).toBe('Кошелёк адены');
  });

  it('a dialog chunk that will not load leaves the page as it was and says so while the dialog is wanted', async () => {
    const { render } = await open('/', true);
    expect(main().querySelector('h1')?.textContent).toBe('Кошелёк адены');
    expect(document.querySelector('[role="alert"]')?.textContent).toContain('Не удалось загрузить окно');
    await render(false);
    expect(document.querySelector('[role="alert"]')).toBeNull();
    expect(main().querySelector('h1')?.textContent).toBe('Кошелёк адены');
  });
});

describe('a new page is announced: title, scroll, focus', () => {
  it('a new path names the page in the title, scrolls to the top and moves focus to <main>; the first page and a ?tab= change do not', async () => {
    const scrollTo = vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
    spies.push(scrollTo);
    await open('/');
    await expect.poll(() => document.title).toBe('Адена Кошелёк');
    expect(scrollTo).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(document.body);
    const link = document.querySelector<HTMLAnchorElement>('footer a[href="/help"]')!;
    await act(async () => link.focus());
    await act(async () => link.click());
    expect(window.location.pathname).toBe('/help');
    await expect.poll(() => document.title).toBe('Помощь — Адена Кошелёк');
    expect(scrollTo).toHaveBeenCalledWith(0, 0);
    expect(document.activeElement).toBe(main());
    expect(main().tabIndex).toBe(-1);
    // Another tab of the same page: nothing moves.
    scrollTo.mockClear();
    await act(async () => document.querySelector<HTMLElement>('footer a[href="/about"]')!.focus());
    await go('/help?tab=x');
    expect(scrollTo).not.toHaveBeenCalled();
    expect(document.activeElement).not.toBe(main());
    await go('/');
    await expect.poll(() => document.title).toBe('Адена Кошелёк');
    expect(document.activeElement).toBe(main());
  });

  it('keeps the operators’ unread counter before the title (admin-shift’s shift-signals)', async () => {
    await open('/help');
    await expect.poll(() => document.title).toBe('Помощь — Адена Кошелёк');
    document.title = `(3) ${document.title}`;
    await go('/admin/users');
    await expect.poll(() => document.title).toBe('(3) Пользователи — Адена Кошелёк');
  });
});
