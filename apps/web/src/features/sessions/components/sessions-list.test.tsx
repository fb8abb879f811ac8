// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { SessionsList } from './sessions-list';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === text);
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const session = (id: number, current: boolean, userAgent = WINDOWS) => ({
  id,
  current,
  method: 'email',
  created_at: '2026-11-01T10:00:00.000Z',
  last_seen_at: '2026-11-02T10:00:00.000Z',
  ip: '203.0.113.5',
  user_agent: userAgent,
});
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:127.0) Gecko/20100101 Firefox/127.0';
/** The focused element's accessible name, as a screen reader says it (aria-label, else its text). */
const focused = () => {
  const a = document.activeElement as HTMLElement | null;
  return a === null || a === document.body ? 'body' : (a.getAttribute('aria-label') ?? a.textContent);
};
const byName = (name: string) => [...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === name);

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

  async function mountList(sessions: Array<ReturnType<typeof session>>, endAnswer: (id: number) => Response) {
    let listed = sessions;
    const fetch = vi.fn(async (url: string, init?: RequestInit) => {
      const path = String(url);
      if (init?.method === 'DELETE') {
        const id = Number(path.split('/').pop());
        const res = endAnswer(id);
        if (res.ok) listed = listed.filter((s) => s.id !== id);
        return res;
      }
      if (path.endsWith('/api/sessions/end_others')) {
        const ended = listed.filter((s) => !s.current).length;
        listed = listed.filter((s) => s.current);
        return answer(200, { ended });
      }
      if (path.endsWith('/api/sessions')) return answer(200, listed);
      return answer(404, { message: 'Не найдено' });
    });
    vi.stubGlobal('fetch', fetch);
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(SessionsList))));
    await settle();
  }
  /** Presses a button from the keyboard: focused first, as Tab leaves it, then activated. */
  const press = async (b: HTMLButtonElement | undefined) => {
    expect(b).toBeDefined();
    await act(async () => {
      b!.focus();
      b!.click();
    });
    await settle();
    await settle();
  };

  it('«Завершить» leaves focus on the next session’s «Завершить», the previous one’s after the last row, and on the list when none is left', async () => {
    // From the Chromium walk: the ended row took its focused button along, focus fell to <body> and the next Tab
    // started from the header.
    await mountList([session(1, true), session(2, false, IPHONE), session(3, false, ANDROID), session(4, false, FIREFOX)], () => answer(200, {}));
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(4);

    await press(byName('Завершить сеанс «Chrome на Android»'));
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(3);
    expect(focused()).toBe('Завершить сеанс «Firefox на macOS»');

    // The last row ended: the one above it takes focus.
    await press(byName('Завершить сеанс «Firefox на macOS»'));
    expect(focused()).toBe('Завершить сеанс «Safari на iPhone»');

    // No other session left (only this one, without a button): the list itself, made focusable, takes it.
    await press(byName('Завершить сеанс «Safari на iPhone»'));
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(1);
    expect(document.activeElement).toBe(document.querySelector('ul[aria-label="Сеансы"]'));
    expect(document.activeElement?.getAttribute('tabindex')).toBe('-1');
  });

  it('«Завершить все остальные» leaves focus on the list; a refused «Завершить» gives it back to its button', async () => {
    await mountList([session(1, true), session(2, false, IPHONE), session(3, false, ANDROID)], (id) =>
      id === 3 ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, {}),
    );
    // Chromium drops focus from a button disabled while its call runs; the refusal gives it back.
    const refused = byName('Завершить сеанс «Chrome на Android»');
    await act(async () => {
      refused!.focus();
      refused!.click();
      refused!.blur();
    });
    await settle();
    await settle();
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(3);
    expect(focused()).toBe('Завершить сеанс «Chrome на Android»');

    // «Завершить все остальные» goes with the rows it ended: the list takes focus.
    await press([...document.querySelectorAll('button')].find((b) => b.textContent === 'Завершить все остальные'));
    expect(document.querySelectorAll('[data-testid="session"]')).toHaveLength(1);
    expect(document.activeElement).toBe(document.querySelector('ul[aria-label="Сеансы"]'));
  });
});
