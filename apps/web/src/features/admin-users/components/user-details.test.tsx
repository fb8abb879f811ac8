// @vitest-environment happy-dom
import type { AdminUser } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { UserDetails } from './user-details';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const user: AdminUser = {
  id: 42,
  name: 'Нарушитель',
  email: 'cheater@example.com',
  phone: null,
  admin: false,
  vip: false,
  vip_until: null,
  telegram_linked: false,
  two_factor: false,
  created_at: '2025-01-01T00:00:00Z',
  blocked_at: '2025-02-01T00:00:00Z',
  telegram_id: null,
  discord_id: null,
};

const button = (name: string, within: ParentNode = document) => [...within.querySelectorAll('button')].find((b) => b.textContent === name)!;
const unblockDialog = () => document.querySelector('[data-testid="unblock-dialog"]');

describe('a blocked user’s card', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('«Разблокировать» unblocks only after the operator confirms, naming the user', async () => {
    localStorage.setItem('access_token', 'token');
    const unblocks: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === `/api/admin/users/${user.id}/unblock` && init?.method === 'POST') {
          unblocks.push(url);
          return answer(200, { success: { ...user, blocked_at: null } });
        }
        if (url === `/api/admin/users/${user.id}`) return answer(200, { user, wallets: [], requests: [], codes: [], ledger: [] });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: user.id, currentUserId: 1 }))));
    await settle();

    await act(async () => button('Разблокировать').click());
    await settle();
    expect(unblocks).toEqual([]);
    expect(unblockDialog()?.textContent).toContain('Разблокировать пользователя «Нарушитель»?');
    expect(unblockDialog()?.textContent).toContain('Он снова сможет войти');

    await act(async () => button('Разблокировать', unblockDialog()!).click());
    await settle();
    expect(unblocks).toEqual([`/api/admin/users/${user.id}/unblock`]);
  });
});
