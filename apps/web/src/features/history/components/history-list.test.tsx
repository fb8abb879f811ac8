// @vitest-environment happy-dom
import type { User, Wallet } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { userQueryOptions } from '../../../lib/session';
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
