// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup } from '../../../test/dom';
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
    expect(tile()).toContain('9\u00a0мин');
    expect(tile()).toContain('вывод 301\u00a0монеты эйнхасад');

    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(tile()).toContain('10\u00a0мин');
  });
});

describe('the dashboard', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });
  const mount = async () => {
    localStorage.setItem('access_token', 'token');
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminDashboard))));
    await act(async () => vi.advanceTimersByTimeAsync(10));
  };
  const text = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
  const busy = {
    ...dashboard,
    pending: [{ gamesserver_id: 1, gamesserver: 'Scryde x50', currency_type: 1, type: 'input', count: 12345, sum: 1_500_000, oldest_created_at: '2026-11-01T10:00:00.000Z' }],
    medians: [{ gamesserver_id: 1, gamesserver: 'Scryde x50', minutes: 3, processed: 23456 }],
    median_all_minutes: 3,
    processed_24h: 23456,
  };

  it('groups its counts as ru-RU writes them, as it does the amounts', async () => {
    vi.useFakeTimers({ now: NOW });
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, busy)));
    await mount();
    expect(text('dashboard-pending-total')).toBe('Ожидают обработки12\u00a0345');
    expect(text('dashboard-median')).toContain('обработано заявок: 23\u00a0456');
    const table = document.querySelector('table[aria-label="Ожидающие заявки по серверам"]')?.textContent ?? '';
    expect(table).toContain('12\u00a0345 на 1\u00a0500\u00a0000');
    const medians = document.querySelector('table[aria-label="Медиана обработки по серверам"]')?.textContent ?? '';
    expect(medians).toContain('(23\u00a0456)');
  });

  it('keeps the figures it has when a poll fails, saying since when they are shown', async () => {
    vi.useFakeTimers({ now: NOW });
    const fetch = vi.fn(async () => answer(200, busy));
    vi.stubGlobal('fetch', fetch);
    await mount();
    expect(text('dashboard-stale')).toBe('');
    const readAt = new Intl.DateTimeFormat('ru-RU', { timeStyle: 'short' }).format(NOW);

    fetch.mockImplementation(async () => answer(503, { message: 'Сервис временно недоступен. Повторите попытку через минуту' }));
    await act(async () => vi.advanceTimersByTimeAsync(5_000));
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(text('dashboard-pending-total')).toContain('12\u00a0345');
    expect(text('dashboard-oldest')).toContain('№7');
    expect(text('dashboard-stale')).toContain(`Не удалось обновить данные, показаны данные на ${readAt}.`);
    expect(text('dashboard-stale')).toContain('Сервис временно недоступен');

    // The next poll that succeeds takes the warning away.
    fetch.mockImplementation(async () => answer(200, busy));
    await act(async () => vi.advanceTimersByTimeAsync(5_000));
    expect(text('dashboard-stale')).toBe('');
  });

  it('says the error alone when it has nothing to show', async () => {
    vi.useFakeTimers({ now: NOW });
    vi.stubGlobal('fetch', vi.fn(async () => answer(503, { message: 'Сервис временно недоступен. Повторите попытку через минуту' })));
    await mount();
    expect(document.querySelector('[data-view="admin-dashboard"]')).toBeNull();
    expect(document.querySelector('[role="alert"]')?.textContent).toContain('Сервис временно недоступен');
  });
});
