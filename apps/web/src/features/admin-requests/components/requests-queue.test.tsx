// @vitest-environment happy-dom
import type { AdminRequest } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestsQueue } from './requests-queue';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const NOW = new Date('2026-11-01T10:09:59.000Z');
const pending: AdminRequest = {
  id: 7,
  type: 'input',
  currency_type: 2,
  amount: 301,
  status: 'pending',
  gamesserver_id: 1,
  gamesserver: 'Scryde x50',
  nick: 'Hero',
  cashier_nick: 'AdenaKassa2',
  comment: null,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
  user: { id: 5, name: 'Ася', email: 'asya@example.com', phone: null, vip: false },
  processed_by: null,
  processed_at: null,
  claimed_by: null,
  claimed_at: null,
};
const answer = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const settle = () => act(async () => new Promise((r) => setTimeout(r, 20)));
/** The select whose label reads `label`: its shown value. */
const selectOf = (label: string) =>
  [...document.querySelectorAll<HTMLElement>('[role="combobox"]')].find((c) => document.getElementById(c.getAttribute('aria-labelledby') ?? '')?.textContent === label)!;

describe('the operators’ queue filters', () => {
  let root: Root | null = null;
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    vi.useRealTimers();
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
    localStorage.clear();
  });

  async function open() {
    localStorage.setItem('access_token', 'token');
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(url);
        return answer({ data: [pending], total: 1 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    await settle();
    return asked;
  }

  it('«Все» in «Статус» stays shown once chosen, and the caption says the order of every status', async () => {
    const asked = await open();
    expect(selectOf('Статус').textContent).toBe('Ожидает');
    expect(selectOf('Тип').textContent).toBe('Все');
    expect(selectOf('Валюта').textContent).toBe('Обе');
    expect(document.body.textContent).toContain('Сначала VIP, затем по времени создания. Всего: 1');

    await act(async () => selectOf('Статус').dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0 })));
    const all = [...document.querySelectorAll('[role="option"]')].find((o) => o.textContent === 'Все')!;
    await act(async () => (all as HTMLElement).click());
    await settle();

    expect(selectOf('Статус').textContent).toBe('Все');
    expect(asked.at(-1)).not.toContain('status=');
    expect(document.body.textContent).toContain('Сначала ожидающие (VIP, затем по времени создания), потом обработанные — новые выше. Всего: 1');
  });

  it('a request created 9 min 59 s ago waits «9 мин», as the dashboard counts it', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    await open();
    expect(document.querySelector('[data-testid="admin-request"]')?.textContent).toContain('ждёт 9 мин');
  });
});
