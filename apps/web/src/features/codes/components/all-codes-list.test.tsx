// @vitest-environment happy-dom
import type { Code } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { AllCodesList } from './all-codes-list';
import { MyCodesList } from './my-codes-list';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const code = (id: number, status: Code['status']): Code => ({
  id,
  nominal: 1_000_000,
  price: 1_020_000,
  status,
  sert: `ADN-AAAA-BBBB-CCCC-000${id}`,
  gamesserver_id: 1,
  pricekod_id: null,
  created_at: '2026-11-01T12:00:00Z',
  activated_at: status === 'activated' ? '2026-11-02T12:00:00Z' : null,
});

describe('my codes', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('expanded, the whole list takes the open codes’ place: each code once, the copy button on the active one only', async () => {
    const open = [code(1, 'active'), code(2, 'activated')];
    const all = [code(1, 'active'), code(2, 'activated'), code(3, 'cancelled')];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/my_codes')) return answer(200, { data: all, total: all.length });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const openCodes = createElement(MyCodesList, { codes: open, gameServerId: 1 });
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AllCodesList, { gameServerId: 1, openCodes }))));
    const ids = () => [...document.querySelectorAll('[data-testid="my-code"]')].map((li) => li.getAttribute('data-code-id'));
    const copies = () => [...document.querySelectorAll('[aria-label="Скопировать код"]')].map((b) => b.closest('[data-testid="my-code"]')?.getAttribute('data-code-id'));
    expect(ids()).toEqual(['1', '2']);
    expect(copies()).toEqual(['1']);

    await act(async () => (document.querySelector('[data-testid="all-codes-toggle"]') as HTMLButtonElement).click());
    await settle();
    expect(ids()).toEqual(['1', '2', '3']);
    expect(copies()).toEqual(['1']);

    await act(async () => (document.querySelector('[data-testid="all-codes-toggle"]') as HTMLButtonElement).click());
    expect(ids()).toEqual(['1', '2']);
  });

  it('a page past the end after the list shrank (codes cancelled elsewhere) moves to the last page there is instead of a blank without a pager', async () => {
    let total = 21;
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (!url.startsWith('/api/my_codes')) throw new Error(`unexpected ${url}`);
        const page = Number(new URL(url, 'http://x').searchParams.get('page'));
        const ids = Array.from({ length: total }, (_, i) => i + 1).slice((page - 1) * 20, page * 20);
        return answer(200, { data: ids.map((id) => code(id, 'active')), total });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AllCodesList, { gameServerId: 1, openCodes: null }))));
    await act(async () => (document.querySelector('[data-testid="all-codes-toggle"]') as HTMLButtonElement).click());
    await settle();
    await act(async () => (document.querySelector('[aria-label="Go to page 2"]') as HTMLButtonElement).click());
    await settle();
    const ids = () => [...document.querySelectorAll('[data-testid="my-code"]')].map((li) => li.getAttribute('data-code-id'));
    expect(ids()).toEqual(['21']);

    // One code cancelled in another tab: 20 are left, page 2 answers empty.
    total = 20;
    await act(async () => qc.invalidateQueries({ queryKey: ['codes', 'mine'] }));
    await settle();
    await settle();
    expect(ids()).toHaveLength(20);
    expect(ids()[0]).toBe('1');
  });
});
