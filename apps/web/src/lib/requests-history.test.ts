// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../test/dom';
import { useHideRequest, useHistory } from './requests-history';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('useHistory', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('keeps the last page on screen while another page of the same server loads, never another server’s list', async () => {
    // Review finding: keepPreviousData showed the last server's requests, «Отменить» live, as the new server's while it loaded.
    const held: Array<() => void> = [];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const q = new URL(url, 'http://x').searchParams;
        const marker = { data: [], total: Number(q.get('gamesserver_id')) * 100 + Number(q.get('page')) };
        if (q.get('gamesserver_id') === '1' && q.get('page') === '1') return answer(200, marker);
        return new Promise<Response>((r) => held.push(() => r(answer(200, marker))));
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const seen: { current: { total: number } | undefined } = { current: undefined };
    function Probe({ page, server }: { page: number; server: number }) {
      seen.current = useHistory(page, server).data;
      return null;
    }
    root = createRoot(document.createElement('div'));
    const show = async (page: number, server: number) => {
      await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(Probe, { page, server }))));
      await settle();
    };
    await show(1, 1);
    expect(seen.current?.total).toBe(101);
    await show(1, 2);
    expect(seen.current).toBeUndefined();
    await act(async () => held.shift()?.());
    await settle();
    expect(seen.current?.total).toBe(201);
    await show(2, 2);
    expect(seen.current?.total).toBe(201);
    await act(async () => held.shift()?.());
    await settle();
    expect(seen.current?.total).toBe(202);
  });

  it('a refused removal from the history (already removed elsewhere, 404) reads the history again', async () => {
    localStorage.setItem('access_token', 'token');
    let reads = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === 'DELETE' || url.includes('delete_balance_user')) return answer(404, { message: 'Заявка не найдена' });
        reads += 1;
        return answer(200, { data: [], total: 0 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
    let hide: ReturnType<typeof useHideRequest> | undefined;
    function Probe() {
      useHistory(1, 1);
      hide = useHideRequest();
      return null;
    }
    root = createRoot(document.createElement('div'));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(Probe))));
    await settle();
    expect(reads).toBe(1);
    await act(async () => void hide!.mutateAsync(7).catch(() => {}));
    await settle();
    expect(reads).toBe(2);
  });
});
