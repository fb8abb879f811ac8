// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle, type } from '../../../test/dom';
import { AdminUsers } from './admin-users';
import { UserDetails } from './user-details';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const user = (id: number) => ({
  id,
  name: `Игрок ${id}`,
  email: `p${id}@example.com`,
  phone: null,
  admin: false,
  vip: false,
  vip_until: null,
  blocked_at: null,
  telegram_linked: false,
  discord_id: null,
  telegram_id: null,
  two_factor: false,
  has_password: true,
  created_at: '2026-11-01T00:00:00Z',
});

describe("the operators' user search", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    history.replaceState(null, '', '/');
  });

  it('comes back with its search and page after a user’s card was opened from it (Back)', async () => {
    history.replaceState(null, '', '/admin/users');
    const asked: URLSearchParams[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const q = new URL(String(url), 'http://localhost').searchParams;
        asked.push(q);
        const page = Number(q.get('page') ?? 1);
        return answer(200, { data: Array.from({ length: 20 }, (_, i) => user(page * 100 + i)), total: 45 });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(AdminUsers)));
    await settle();
    await act(async () => type(document.querySelector('input') as HTMLInputElement, 'Игрок'));
    await settle();
    await act(async () => document.querySelector<HTMLButtonElement>('button[aria-label="Go to page 2"]')!.click());
    await settle();
    expect(new URLSearchParams(location.search).get('q')).toBe('Игрок');
    expect(new URLSearchParams(location.search).get('page')).toBe('2');

    // The card opens in place of the list; Back brings the address with the search, and the list is mounted anew.
    const back = location.pathname + location.search;
    await act(async () => root!.unmount());
    asked.length = 0;
    history.replaceState(null, '', back);
    ({ root } = await mountWithQuery(() => createElement(AdminUsers)));
    await settle();
    expect((document.querySelector('input') as HTMLInputElement).value).toBe('Игрок');
    expect(asked.at(-1)?.get('q')).toBe('Игрок');
    expect(asked.at(-1)?.get('page')).toBe('2');
    expect(document.querySelector('[aria-current="page"]')?.textContent).toBe('2');

    // The menu's link to the bare list, followed while the list is on screen: the search is cleared.
    await act(async () => history.pushState(null, '', '/admin/users'));
    await settle();
    expect((document.querySelector('input') as HTMLInputElement).value).toBe('');
    expect(location.search).toBe('');
  });

  it('asks page 2 under the newest user page 1 showed (before_id); a new search drops that anchor', async () => {
    history.replaceState(null, '', '/admin/users');
    const asked: URLSearchParams[] = [];
    // Users sign up between reads: page 1 starts at a newer user each time.
    let newest = 500;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const q = new URL(String(url), 'http://localhost').searchParams;
        asked.push(q);
        newest += 5;
        const top = Number(q.get('before_id') ?? newest);
        const page = Number(q.get('page') ?? 1);
        return answer(200, { data: Array.from({ length: 20 }, (_, i) => user(top - (page - 1) * 20 - i)), total: 45 });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(AdminUsers)));
    await settle();
    const goTo = async (page: number) => {
      await act(async () => document.querySelector<HTMLButtonElement>(`button[aria-label="Go to page ${page}"]`)!.click());
      await settle();
    };
    expect(asked).toHaveLength(1);
    expect(asked[0]!.get('before_id')).toBeNull();
    await goTo(2);
    expect(asked.at(-1)?.get('page')).toBe('2');
    expect(asked.at(-1)?.get('before_id')).toBe('505');
    // The rows of page 2 follow page 1's without a repeat, however many signed up meanwhile.
    expect(document.querySelector('[data-testid="admin-user-row"] td')?.textContent).toBe('485');

    // A new search: its page 1 is read live, and its page 2 goes under its own page 1's newest user.
    await act(async () => type(document.querySelector('input') as HTMLInputElement, 'Игрок'));
    await settle();
    expect(asked.at(-1)?.get('q')).toBe('Игрок');
    expect(asked.at(-1)?.get('page')).toBe('1');
    expect(asked.at(-1)?.get('before_id')).toBeNull();
    const anchor = String(newest);
    expect(anchor).not.toBe('505');
    await goTo(2);
    expect(asked.at(-1)?.get('q')).toBe('Игрок');
    expect(asked.at(-1)?.get('before_id')).toBe(anchor);
  });
  it('a re-read that fails keeps the rows on screen with a warning and «Повторить» above them', async () => {
    history.replaceState(null, '', '/admin/users');
    let down = false;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => (down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, { data: [user(7), user(6)], total: 2 }))),
    );
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminUsers))));
    await settle();
    const rows = () => document.querySelectorAll('[data-testid="admin-user-row"]').length;
    const stale = () => document.querySelector('[data-testid="users-stale"]');
    expect(rows()).toBe(2);
    down = true;
    await act(async () => qc.invalidateQueries({ queryKey: ['admin', 'users'] }));
    await settle();
    expect(rows()).toBe(2);
    expect(stale()?.textContent).toContain('Не удалось обновить данные');
    expect(stale()?.textContent).toContain('Сервис временно недоступен');
    down = false;
    await act(async () => [...stale()!.querySelectorAll('button')].find((b) => b.textContent === 'Повторить')!.click());
    await settle();
    expect(stale()).toBeNull();
    expect(rows()).toBe(2);
  });

  it('«К поиску» on a card opened from a search goes back to that search, not to an empty list', async () => {
    // From the Chromium walk: /admin/users?q=igrok → a row → «К поиску» went to /admin/users with the field empty.
    history.replaceState(null, '', '/admin/users?q=igrok&role=vip&page=2');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const path = new URL(String(url), 'http://localhost').pathname;
        if (path === '/api/admin/users/207') return answer(200, { user: user(207), wallets: [], requests: [], codes: [], ledger: [] });
        return answer(200, { data: Array.from({ length: 20 }, (_, i) => user(200 + i)), total: 45 });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(AdminUsers)));
    await settle();
    const link = [...document.querySelectorAll<HTMLAnchorElement>('[data-testid="admin-user-row"] a')].find((a) => a.textContent === 'Игрок 207')!;
    const cardAddress = link.getAttribute('href')!;
    expect(new URL(cardAddress, 'http://localhost').pathname).toBe('/admin/users/207');

    // The card opens in place of the list (as a click on the row or its name does).
    await act(async () => root!.unmount());
    history.pushState(null, '', cardAddress);
    ({ root } = await mountWithQuery(() => createElement(UserDetails, { id: 207, currentUserId: 1 })));
    await settle();
    const back = [...document.querySelectorAll('a')].find((a) => a.textContent === 'К поиску')!;
    expect(back.getAttribute('href')).toBe('/admin/users?q=igrok&role=vip&page=2');

    // A card reached from elsewhere (the audit log, a request) goes to the bare list.
    await act(async () => root!.unmount());
    history.pushState(null, '', '/admin/users/207');
    ({ root } = await mountWithQuery(() => createElement(UserDetails, { id: 207, currentUserId: 1 })));
    await settle();
    expect([...document.querySelectorAll('a')].find((a) => a.textContent === 'К поиску')!.getAttribute('href')).toBe('/admin/users');
  });
});
