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
});
