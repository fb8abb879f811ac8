// @vitest-environment happy-dom
import type { Request, User, Wallet } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { allHistoryKey } from '../../../lib/requests-history';
import { startSession, userQueryOptions } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { answer, cleanup, settle } from '../../../test/dom';
import { HistoryList } from './history-list';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const user = { id: 5, name: 'Ася', admin: false, created_at: '2026-11-01T00:00:00Z' } as User;
const wallet = (gamesserver_id: number, gamesserver: string, new_message: boolean): Wallet => ({
  id: gamesserver_id * 10,
  gamesserver_id,
  gamesserver,
  nick: 'Hero',
  balance: 0,
  balance_second: 0,
  new_message,
});
const notice = () => document.querySelector('[data-testid="history-unread-elsewhere"]')?.textContent ?? null;

describe('the History tab of one server', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  async function show(gameServerId: number, wallets: Wallet[]) {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/get_user_input_output_balance')) return answer(200, { data: [], total: 0 });
        if (url.startsWith('/api/wallets')) return answer(200, wallets);
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } } });
    qc.setQueryData(userQueryOptions().queryKey, user);
    qc.setQueryData(walletsQueryOptions().queryKey, wallets);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(HistoryList, { gameServerId }))));
    await settle();
  }

  it('with no history of its own, names the server whose unread decision lights the tab’s dot', async () => {
    await show(1, [wallet(1, 'Scryde x50', false), wallet(2, 'Asterios x5', true)]);
    expect(document.body.textContent).toContain('Заявок пока нет');
    expect(notice()).toBe('Есть новые решения по заявкам на сервере Asterios x5. Выберите его выше, чтобы их увидеть.');
  });

  it('names every other server with unread decisions; says nothing when they are all on this one', async () => {
    await show(1, [wallet(1, 'Scryde x50', true), wallet(2, 'Asterios x5', true), wallet(3, 'Elmorelab', true)]);
    expect(notice()).toBe('Есть новые решения по заявкам на серверах Asterios x5 и Elmorelab. Выберите сервер выше, чтобы их увидеть.');
    await act(async () => root!.unmount());

    await show(1, [wallet(1, 'Scryde x50', true), wallet(2, 'Asterios x5', false)]);
    expect(notice()).toBeNull();
  });
});

const entry = (id: number, status: Request['status'], gamesserver_id = 1): Request => ({
  id,
  type: 'output',
  currency_type: 1,
  amount: 1_000_000,
  status,
  gamesserver_id,
  gamesserver: gamesserver_id === 1 ? 'Scryde x50' : 'Asterios x5',
  nick: 'Hero',
  cashier_nick: '',
  comment: null,
  created_at: '2026-11-01T12:00:00Z',
  updated_at: '2026-11-01T12:00:00Z',
});
type Reply = Response | Promise<Response>;
const ids = () => [...document.querySelectorAll('[data-testid="history-item"]')].map((i) => i.textContent?.match(/№(\d+)/)?.[1]);
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name);
const click = async (b: Element | undefined) => {
  expect(b).toBeDefined();
  await act(async () => (b as HTMLElement).click());
  await settle();
};
const currentPage = () => document.querySelector('[aria-current="page"]')?.textContent ?? null;

describe('the History tab: what it shows after a refusal, a failed read, a switch', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });

  /** The tab with the history answered by `history(page, server)`; `other` answers anything else (or null: unexpected). */
  async function show(gameServerId: number, history: (page: number, server: number | null, url: URL) => Reply, other: (url: string, init?: RequestInit) => Reply | null = () => null) {
    localStorage.setItem('access_token', 'token');
    const fetch = vi.fn(async (url: string, init?: RequestInit) => {
      if (url.startsWith('/api/get_user_input_output_balance')) {
        const u = new URL(url, 'http://x');
        return history(Number(u.searchParams.get('page')), u.searchParams.has('gamesserver_id') ? Number(u.searchParams.get('gamesserver_id')) : null, u);
      }
      if (url.startsWith('/api/wallets')) return answer(200, [wallet(1, 'Scryde x50', false), wallet(2, 'Asterios x5', false)]);
      const r = other(url, init);
      if (r) return r;
      throw new Error(`unexpected ${url}`);
    });
    vi.stubGlobal('fetch', fetch);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY }, mutations: { networkMode: 'always' } } });
    qc.setQueryData(userQueryOptions().queryKey, user);
    qc.setQueryData(walletsQueryOptions().queryKey, [wallet(1, 'Scryde x50', false), wallet(2, 'Asterios x5', false)]);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const render = async (server: number) => {
      await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(HistoryList, { gameServerId: server }))));
      await settle();
    };
    await render(gameServerId);
    const calls = (prefix: string) => fetch.mock.calls.filter(([u]) => u.startsWith(prefix)).map(([u]) => u);
    return { qc, render, calls };
  }

  it('a refused cancel (409 «Заявка уже отменена») reads the history and the wallets again: the request no longer shows «В обработке» with «Отменить»', async () => {
    // Review finding: only a successful cancel read them again; after a refusal the request stayed pending on screen.
    let status: Request['status'] = 'pending';
    const { calls } = await show(
      1,
      () => answer(200, { data: [entry(7, status)], total: 1 }),
      (url) => {
        if (!url.startsWith('/api/delete_request/')) return null;
        status = 'cancelled';
        return answer(409, { message: 'Заявка уже отменена' });
      },
    );
    expect(document.body.textContent).toContain('В обработке');
    const walletReads = calls('/api/wallets').length;
    await click(button('Отменить заявку №7'));
    await click(button('Отменить заявку'));
    await settle();
    expect(calls('/api/delete_request/')).toHaveLength(1);
    expect(document.querySelector('[data-testid="history-item"]')?.textContent).toContain('Отменена');
    expect(document.body.textContent).not.toContain('В обработке');
    expect(button('Отменить заявку №7')).toBeUndefined();
    expect(calls('/api/wallets').length).toBeGreaterThan(walletReads);
  });

  /** The focused element's accessible name (aria-label, else its text); `body` when focus was dropped. */
  const focused = () => {
    const a = document.activeElement as HTMLElement | null;
    return a === null || a === document.body ? 'body' : (a.getAttribute('aria-label') ?? a.textContent);
  };
  /** Presses a button from the keyboard: focused first, as Tab leaves it, then activated. */
  const press = async (b: HTMLElement | undefined) => {
    expect(b).toBeDefined();
    await act(async () => {
      b!.focus();
      b!.click();
    });
    await settle();
    await settle();
  };

  it('«Убрать из истории» leaves focus on the next entry’s, the previous one’s after the last, and on «Заявок пока нет» when none is left', async () => {
    // From the Chromium walk: the hidden entry left with its focused button, focus fell to <body> and the next Tab
    // started from the page's top.
    let listed = [entry(7, 'completed'), entry(8, 'rejected'), entry(9, 'cancelled')];
    await show(
      1,
      () => answer(200, { data: listed, total: listed.length }),
      (url) => {
        const m = url.match(/^\/api\/delete_balance_user\/(\d+)/);
        if (!m) return null;
        listed = listed.filter((e) => e.id !== Number(m[1]));
        return answer(200, { success: 1 });
      },
    );
    await press(button('Убрать заявку №8 из истории'));
    expect(ids()).toEqual(['7', '9']);
    expect(focused()).toBe('Убрать заявку №9 из истории');

    await press(button('Убрать заявку №9 из истории'));
    expect(ids()).toEqual(['7']);
    expect(focused()).toBe('Убрать заявку №7 из истории');

    await press(button('Убрать заявку №7 из истории'));
    expect(ids()).toEqual([]);
    expect(document.activeElement?.textContent).toBe('Заявок пока нет. Пополните кошелёк — заявка появится здесь.');
  });

  it('a cancelled request’s «Отменить» gives focus to the «Убрать из истории» that takes its place', async () => {
    let status: Request['status'] = 'pending';
    await show(
      1,
      () => answer(200, { data: [entry(7, status), entry(8, 'completed')], total: 2 }),
      (url) => {
        if (!url.startsWith('/api/delete_request/')) return null;
        status = 'cancelled';
        return answer(200, { success: 7 });
      },
    );
    await press(button('Отменить заявку №7'));
    await press(button('Отменить заявку'));
    // The dialog's closing transition ends and the page drops it.
    await act(async () => new Promise((r) => setTimeout(r, 400)));
    expect(document.querySelector('[data-testid="history-item"]')?.textContent).toContain('Отменена');
    expect(focused()).toBe('Убрать заявку №7 из истории');
  });

  it('a cancel whose history is read again only 3.5 s after its answer still gives focus to the «Убрать из истории» that takes its place', async () => {
    // Review finding: the watch ended 3 s after the answer while «Отменить» was still on show; the slower re-read then
    // swapped it for «Убрать из истории», and focus fell to <body>.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true });
    let status: Request['status'] = 'pending';
    await show(
      1,
      () => {
        const list = answer(200, { data: [entry(7, status), entry(8, 'completed')], total: 2 });
        return status === 'pending' ? list : new Promise<Response>((r) => setTimeout(() => r(list), 3_500));
      },
      (url) => {
        if (!url.startsWith('/api/delete_request/')) return null;
        status = 'cancelled';
        return answer(200, { success: 7 });
      },
    );
    await press(button('Отменить заявку №7'));
    await press(button('Отменить заявку'));
    await act(async () => vi.advanceTimersByTimeAsync(400));
    // The answer is in, the dialog gone; the list is still being read: «Отменить» is on show, and focus on it.
    expect(focused()).toBe('Отменить заявку №7');
    await act(async () => vi.advanceTimersByTimeAsync(3_300));
    expect(document.querySelector('[data-testid="history-item"]')?.textContent).toContain('Отменена');
    expect(focused()).toBe('Убрать заявку №7 из истории');
  });

  it('a failed re-read keeps the list on show with a warning and «Повторить»; a failed first read says so, with «Повторить»', async () => {
    // Review finding: a failed background re-read replaced the whole list with «Не удалось загрузить историю. Обновите страницу.»
    let down = false;
    const { qc } = await show(1, () => (down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, { data: [entry(7, 'completed')], total: 1 })));
    expect(ids()).toEqual(['7']);
    down = true;
    await act(async () => qc.invalidateQueries({ queryKey: allHistoryKey }));
    await settle();
    expect(ids()).toEqual(['7']);
    expect(document.querySelector('[data-testid="history-error"]')).toBeNull();
    const stale = document.querySelector('[data-testid="history-stale"]');
    expect(stale?.textContent).toContain('Не удалось обновить историю');
    down = false;
    await click([...stale!.querySelectorAll('button')].find((b) => b.textContent === 'Повторить'));
    expect(document.querySelector('[data-testid="history-stale"]')).toBeNull();
    expect(ids()).toEqual(['7']);

    // Nothing read yet: the error takes the list's place, and «Повторить» reads it.
    await act(async () => qc.resetQueries({ queryKey: allHistoryKey }));
    down = true;
    await act(async () => qc.resetQueries({ queryKey: allHistoryKey }));
    await settle();
    const error = document.querySelector('[data-testid="history-error"]');
    expect(error?.textContent).toContain('Не удалось загрузить историю');
    expect(ids()).toEqual([]);
    down = false;
    await click([...error!.querySelectorAll('button')].find((b) => b.textContent === 'Повторить'));
    expect(document.querySelector('[data-testid="history-error"]')).toBeNull();
    expect(ids()).toEqual(['7']);
  });

  it('another player (the mini app’s account switch) or another server and back opens on the first page, not the page the last one was on', async () => {
    // Review finding: the page number outlived the account switch (a new player's history opened on the last one's page 3)
    // and a server switch (back on the first server, its page 3 again).
    let hold: Promise<Response> | null = null;
    const { qc, render, calls } = await show(1, (page, server) =>
      hold && server === 2 ? hold : answer(200, { data: [entry(server! * 100 + page, 'pending', server!)], total: 30 }),
    );
    expect(ids()).toEqual(['101']);
    await click(button('Go to page 3'));
    expect(currentPage()).toBe('3');
    expect(ids()).toEqual(['103']);

    // Another server: its first page, and nothing of the last server's list while it loads.
    let release: (r: Response) => void = () => {};
    hold = new Promise<Response>((r) => (release = r));
    await render(2);
    expect(ids()).toEqual([]);
    expect(calls('/api/get_user_input_output_balance').at(-1)).toContain('page=1&');
    await act(async () => release(answer(200, { data: [entry(201, 'pending', 2)], total: 30 })));
    hold = null;
    await settle();
    expect(ids()).toEqual(['201']);
    expect(currentPage()).toBe('1');
    await render(1);
    expect(currentPage()).toBe('1');
    expect(ids()).toEqual(['101']);

    await click(button('Go to page 3'));
    expect(ids()).toEqual(['103']);
    await act(async () => startSession(qc, { access_token: 'token-2', user: { ...user, id: 6 } }));
    await settle();
    expect(currentPage()).toBe('1');
    expect(ids()).toEqual(['101']);
  });
});
