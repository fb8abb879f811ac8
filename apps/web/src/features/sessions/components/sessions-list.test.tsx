// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { SessionsList } from './sessions-list';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === text);
const session = (id: number, current: boolean) => ({
  id,
  current,
  method: 'email',
  created_at: '2026-11-01T10:00:00.000Z',
  last_seen_at: '2026-11-02T10:00:00.000Z',
  ip: '203.0.113.5',
  user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
});

describe('the sessions list', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('a list that failed to load says why with «Повторить», which reads it again; a failed re-read keeps the list under a warning', async () => {
    // Review finding: a 503 on GET /api/sessions showed only the error's text, with no way to read the list again.
    let down = true;
    const fetch = vi.fn(async (url: string) => {
      if (String(url).endsWith('/api/sessions'))
        return down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, [session(1, true), session(2, false)]);
      return answer(404, { message: 'Не найдено' });
    });
    vi.stubGlobal('fetch', fetch);
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(SessionsList))));
    await settle();
    const failed = () => document.querySelector('[data-testid="sessions-load-error"]');
    expect(failed()?.textContent).toContain('Сервис временно недоступен');
    expect(button('Повторить')).toBeDefined();

    down = false;
    await act(async () => button('Повторить')!.click());
    await settle();
    expect(failed()).toBeNull();
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(2);

    // The next read fails: the two sessions stay, with a warning and «Повторить» above them.
    down = true;
    await act(async () => qc.refetchQueries({ queryKey: ['sessions'] }));
    await settle();
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(2);
    expect(document.querySelector('[data-testid="sessions-stale"]')?.textContent).toContain('Не удалось обновить данные');
    down = false;
    await act(async () => button('Повторить')!.click());
    await settle();
    expect(document.querySelector('[data-testid="sessions-stale"]')).toBeNull();
    expect(fetch.mock.calls.filter(([u]) => String(u).endsWith('/api/sessions'))).toHaveLength(4);
  });
});
