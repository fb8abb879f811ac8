// @vitest-environment happy-dom
import type { StatementEntry } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSession, userQueryOptions } from '../../lib/session';
import { useUi } from '../../lib/ui-store';
import { answer, cleanup, playerUser, settle } from '../../test/dom';
import { HomeRoute } from './home';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const server = { id: 1, name: 'Scryde x50', code_fee_bp: 300, vip_code_fee_bp: 100, min_nominal: 100_000 };
const entry = (id: number): StatementEntry => ({
  id,
  at: '2026-11-01T12:00:00Z',
  kind: 'deposit',
  currency_type: 1,
  amount: 5,
  balance_after: 5,
  gamesserver_id: 1,
  description: `Заявка №${id}.`,
});

const button = (label: string) => document.querySelector<HTMLButtonElement>(`[aria-label="${label}"]`);
const ids = () => [...document.querySelectorAll('[data-testid="statement-entry"]')].map((li) => li.textContent?.match(/Заявка №(\d+)\./)?.[1]);
const currentPage = () => document.querySelector('[aria-current="page"]')?.textContent;

/** Waits for what a lazily loaded tab shows (its chunk is imported on first use). */
async function until(check: () => boolean) {
  for (let i = 0; i < 100 && !check(); i++) await settle();
}

let root: Root | null = null;
afterEach(async () => {
  await cleanup(root);
  root = null;
  useUi.setState({ dialog: { name: 'none' }, queued: null });
  window.history.replaceState(null, '', '/');
});

describe('the home page’s statement tab', () => {
  it('another account signed in on this tab (the mini app’s «Войти как …?») opens the statement on its own first page, not the last account’s page 3 and its anchor', async () => {
    // Review finding: the statement was keyed by server only: player B's statement re-read page 3 under player A's
    // newest row (before_id) and said «Движений по балансу пока нет…» with no pager.
    window.history.replaceState(null, '', '/?tab=statement');
    localStorage.setItem('access_token', 'token-a');
    localStorage.setItem('gamesserver_id', '1');
    // Player A has 60 movements (ids 1000 down to 941), player B 5 (ids 2005 down to 2001), newer than all of A's.
    const fetch = vi.fn(async (url: string) => {
      const u = new URL(url, 'http://x');
      if (u.pathname === '/api/statement') {
        const page = Number(u.searchParams.get('page'));
        const before = Number(u.searchParams.get('before_id') ?? Number.POSITIVE_INFINITY);
        const all = localStorage.getItem('access_token') === 'token-a' ? Array.from({ length: 60 }, (_, i) => 1000 - i) : [2005, 2004, 2003, 2002, 2001];
        const rows = all.filter((id) => id <= before);
        return answer(200, { data: rows.slice((page - 1) * 20, page * 20).map(entry), total: rows.length });
      }
      if (u.pathname === '/api/gamesservers') return answer(200, [server]);
      if (u.pathname === '/api/wallets') return answer(200, []);
      throw new Error(`unexpected ${url}`);
    });
    vi.stubGlobal('fetch', fetch);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(HomeRoute))));
    await until(() => ids().length > 0);
    expect(ids()[0]).toBe('1000');
    await act(async () => button('Go to page 3')!.click());
    await settle();
    expect(currentPage()).toBe('3');
    expect(ids()[0]).toBe('960');
    const reads = () => fetch.mock.calls.map(([url]) => new URL(url, 'http://x')).filter((u) => u.pathname === '/api/statement');
    expect(reads().at(-1)!.searchParams.get('before_id')).toBe('1000');

    await act(async () => startSession(qc, { access_token: 'token-b', user: { ...playerUser(false), id: 6, name: 'Другой' } }));
    await until(() => ids()[0] === '2005');
    const last = reads().at(-1)!;
    expect(last.searchParams.get('page')).toBe('1');
    expect(last.searchParams.has('before_id')).toBe(false);
    expect(ids()).toEqual(['2005', '2004', '2003', '2002', '2001']);
    expect(document.querySelector('[data-testid="statement-empty"]')).toBeNull();
  });
});

describe('the home page when the user could not be read', () => {
  it('with a token held and /api/user answering 503, every tab says so with «Повторить», never «Войдите»; «Повторить» reads the user again and the tab shows', async () => {
    // Review finding: a failed user read counted as signed out: the tabs said «Войдите, чтобы увидеть…» to a
    // signed-in player during a database outage.
    window.history.replaceState(null, '', '/');
    localStorage.setItem('access_token', 'token');
    localStorage.setItem('gamesserver_id', '1');
    let down = true;
    const fetch = vi.fn(async (url: string) => {
      const u = new URL(url, 'http://x');
      if (u.pathname === '/api/user') return down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, playerUser(false));
      if (u.pathname === '/api/statement') return answer(200, { data: [entry(7)], total: 1 });
      if (u.pathname === '/api/gamesservers') return answer(200, [server]);
      if (u.pathname === '/api/wallets') return answer(200, []);
      return answer(404, { message: 'Не найдено' });
    });
    vi.stubGlobal('fetch', fetch);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(HomeRoute))));
    await settle();
    const failed = () => document.querySelector('[data-testid="user-read-failed"]');
    const tab = (label: string) => [...document.querySelectorAll<HTMLElement>('[role="tab"]')].find((t) => t.textContent === label)!;
    for (const label of ['Кошелёк', 'Коды', 'История', 'Выписка']) {
      await act(async () => tab(label).click());
      await until(() => failed() !== null);
      expect(failed()?.textContent, label).toContain('Не удалось загрузить данные вашего аккаунта. Сервис временно недоступен');
      expect(document.body.textContent, label).not.toContain('Войдите');
    }
    expect(localStorage.getItem('access_token')).toBe('token');
    // «Пополнить» says the read failed, not «Вы не авторизованы» with «Войти».
    await act(async () => tab('Кошелёк').click());
    await until(() => failed() !== null);
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Пополнить')!.click());
    expect(useUi.getState().dialog).toMatchObject({ name: 'alert', text: 'Не удалось загрузить данные вашего аккаунта. Повторите чуть позже.' });
    await act(async () => useUi.setState({ dialog: { name: 'none' } }));
    await act(async () => tab('Выписка').click());
    await until(() => failed() !== null);

    down = false;
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Повторить')!.click());
    await until(() => ids().length > 0);
    expect(failed()).toBeNull();
    expect(ids()).toEqual(['7']);
  });
});

describe('the home page while the list of servers is read', () => {
  const tab = (label: string) => [...document.querySelectorAll<HTMLElement>('[role="tab"]')].find((t) => t.textContent === label)!;
  const press = (label: string) => act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === label)!.click());

  async function home(servers: 'hang' | 'fail', saved: boolean) {
    window.history.replaceState(null, '', '/');
    localStorage.setItem('access_token', 'token');
    if (saved) localStorage.setItem('gamesserver_id', '1');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const u = new URL(url, 'http://x');
        if (u.pathname === '/api/gamesservers') return servers === 'hang' ? new Promise<Response>(() => {}) : answer(503, { message: 'Сервис временно недоступен' });
        if (u.pathname === '/api/wallets') return answer(200, []);
        return answer(404, { message: 'Не найдено' });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(HomeRoute))));
    await settle();
  }

  it('with a server saved, the wallet and the codes wait while the list is read: no «Выберите игровой сервер», and «Пополнить» opens no «Вы не выбрали сервер»', async () => {
    await home('hang', true);
    const card = () => document.querySelector('[data-testid="wallet-card"]')!;
    expect(card().querySelector('[data-testid="balance-loading"]')).not.toBeNull();
    expect(card().textContent).not.toContain('Выберите игровой сервер');
    await press('Пополнить');
    await press('Вывести');
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => tab('Коды').click());
    await until(() => document.querySelector('[data-testid="codes-loading"]') !== null);
    expect(document.body.textContent).not.toContain('Выберите игровой сервер');
  });

  it('with a server saved and the list unreadable, the wallet and the codes say the list could not be loaded, and «Пополнить» opens nothing', async () => {
    await home('fail', true);
    const card = () => document.querySelector('[data-testid="wallet-card"]')!;
    expect(card().textContent).toContain('Не удалось загрузить список серверов. Обновите страницу.');
    expect(card().textContent).not.toContain('Выберите игровой сервер');
    await press('Пополнить');
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => tab('Коды').click());
    await until(() => !document.querySelector('[data-testid="wallet-card"]') && document.body.textContent!.includes('Не удалось загрузить список серверов'));
    expect(document.querySelector('[role="tabpanel"]')?.textContent).toBe('Не удалось загрузить список серверов. Обновите страницу.');
  });

  it('with no server saved, the wallet asks for one and «Пополнить» says «Вы не выбрали сервер», the list read or not', async () => {
    await home('hang', false);
    expect(document.querySelector('[data-testid="wallet-card"]')!.textContent).toContain('Выберите игровой сервер, чтобы увидеть баланс.');
    await press('Пополнить');
    expect(useUi.getState().dialog.name).toBe('no_server');
  });
});
