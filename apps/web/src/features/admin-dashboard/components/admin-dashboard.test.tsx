// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup } from '../../../test/dom';
import { AdminDashboard } from './admin-dashboard';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const NOW = new Date('2026-11-01T10:09:59.000Z');
const dashboard = {
  pending: [],
  // Read at 10:09:59: the server's floor says 9.
  oldest: { id: 7, gamesserver_id: 1, gamesserver: 'Scryde x50', type: 'output', currency_type: 2, amount: 301, created_at: '2026-11-01T10:00:00.000Z', waiting_minutes: 9 },
  medians: [],
  median_all_minutes: null,
  processed_24h: 0,
};
const tile = () => document.querySelector('[data-testid="dashboard-oldest"]')?.textContent ?? '';

describe('the dashboard’s «Дольше всех ждёт»', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });

  it('counts whole minutes like the queue’s card and turns to the next one on time, between two readings', async () => {
    vi.useFakeTimers({ now: NOW });
    localStorage.setItem('access_token', 'token');
    const fetch = vi.fn(async () => new Response(JSON.stringify(dashboard), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(AdminDashboard, { live: true }))));
    await act(async () => vi.advanceTimersByTimeAsync(10));
    expect(tile()).toContain('9 мин');
    expect(tile()).toContain('вывод 301\u00a0монеты эйнхасад');

    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(tile()).toContain('10 мин');
  });
});
