// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle, type } from '../../../test/dom';
import { AdminUsers } from './admin-users';

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
});
