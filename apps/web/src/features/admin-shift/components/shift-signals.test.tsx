// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup } from '../../../test/dom';
import { ShiftSignals } from './shift-signals';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Counts the chimes: each is made on a fresh AudioContext. */
function stubAudio() {
  const chimes = { count: 0 };
  const node = () => ({ connect: (n: unknown) => n ?? node(), start() {}, stop() {}, frequency: { value: 0 }, gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} } });
  vi.stubGlobal(
    'AudioContext',
    class {
      currentTime = 0;
      destination = {};
      constructor() {
        chimes.count += 1;
      }
      createOscillator = node;
      createGain = node;
      close = async () => {};
    },
  );
  return chimes;
}

describe('the shift signals while the live feed is up', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
    document.title = 'Adena';
  });

  it('read the pending count each minute, so a lost event does not leave the tab’s counter at none nor the request unheard; a request both an event and the poll bring chimes once', async () => {
    vi.useFakeTimers();
    document.title = 'Adena';
    localStorage.setItem('access_token', 'token');
    const chimes = stubAudio();
    let total = 0;
    const fetch = vi.fn(async () => answer(200, { data: [], total }));
    vi.stubGlobal('fetch', fetch);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const render = (created: number) => act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ShiftSignals, { created, live: true }))));
    await render(0);
    await act(async () => vi.advanceTimersByTimeAsync(10));
    expect(document.title).toBe('Adena');

    // A request comes in and its event is lost: the minute's read brings the count.
    total = 1;
    await act(async () => vi.advanceTimersByTimeAsync(60_000));
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(document.title).toBe('(1) Adena');
    expect(chimes.count).toBe(1);

    // Another comes with its event (which refreshes the count), and the next minute's read brings it again: one chime.
    total = 2;
    await render(1);
    await act(async () => qc.invalidateQueries({ queryKey: ['admin', 'requests'] }));
    await act(async () => vi.advanceTimersByTimeAsync(10));
    expect(document.title).toBe('(2) Adena');
    expect(chimes.count).toBe(2);
    await act(async () => vi.advanceTimersByTimeAsync(60_000));
    expect(fetch).toHaveBeenCalledTimes(4);
    expect(document.title).toBe('(2) Adena');
    expect(chimes.count).toBe(2);

    // Requests decided: the count falls, nothing chimes.
    total = 0;
    await act(async () => vi.advanceTimersByTimeAsync(60_000));
    expect(document.title).toBe('Adena');
    expect(chimes.count).toBe(2);
  });

  it('chime for requests the 5-second reads bring while the channel reconnects, once each, and not when switched off', async () => {
    vi.useFakeTimers();
    document.title = 'Adena';
    localStorage.setItem('access_token', 'token');
    localStorage.removeItem('admin.signals');
    const chimes = stubAudio();
    let total = 3;
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { data: [], total })));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ShiftSignals, { created: 0, live: false }))));
    await act(async () => vi.advanceTimersByTimeAsync(10));
    // Requests already waiting when the screen opens are counted, not announced.
    expect(document.title).toBe('(3) Adena');
    expect(chimes.count).toBe(0);

    total = 5;
    await act(async () => vi.advanceTimersByTimeAsync(5_000));
    expect(document.title).toBe('(5) Adena');
    expect(chimes.count).toBe(1);
    await act(async () => vi.advanceTimersByTimeAsync(5_000));
    expect(chimes.count).toBe(1);

    const toggle = document.querySelector<HTMLInputElement>('[data-testid="shift-signals"] input')!;
    await act(async () => toggle.click());
    total = 6;
    await act(async () => vi.advanceTimersByTimeAsync(5_000));
    expect(chimes.count).toBe(1);
    localStorage.removeItem('admin.signals');
  });

  // Cache times: the test client's (none: the screen reads again as it opens) and the app's 10 s (no read on opening).
  it.each([0, 10_000])(
    'a count cached before the screen opened again (staleTime %i ms) is not the chime’s baseline: requests that came while away are counted, not chimed; a later read that rises chimes',
    async (staleTime) => {
      // Review finding: the operator left the admin area and came back within the cache time: the first read compared
      // the fresh count with the cached one and chimed for requests that were already waiting when the screen opened.
      vi.useFakeTimers();
      document.title = 'Adena';
      localStorage.setItem('access_token', 'token');
      localStorage.removeItem('admin.signals');
      const chimes = stubAudio();
      let total = 2;
      vi.stubGlobal('fetch', vi.fn(async () => answer(200, { data: [], total })));
      const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime } } });
      const mount = () => {
        root = createRoot(document.body.appendChild(document.createElement('div')));
        return act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ShiftSignals, { created: 0, live: false }))));
      };
      await mount();
      await act(async () => vi.advanceTimersByTimeAsync(10));
      expect(document.title).toBe('(2) Adena');
      // Away from the admin area for a moment; three requests come meanwhile.
      await act(async () => root!.unmount());
      root = null;
      total = 5;
      await act(async () => vi.advanceTimersByTimeAsync(1_000));
      await mount();
      await act(async () => vi.advanceTimersByTimeAsync(10));
      // The first read since (at once, or the 5-second one): counted, not chimed.
      await act(async () => vi.advanceTimersByTimeAsync(5_000));
      expect(document.title).toBe('(5) Adena');
      expect(chimes.count).toBe(0);

      // One more, with no event: the next read chimes, once.
      total = 6;
      await act(async () => vi.advanceTimersByTimeAsync(5_000));
      expect(document.title).toBe('(6) Adena');
      expect(chimes.count).toBe(1);
      await act(async () => vi.advanceTimersByTimeAsync(5_000));
      expect(chimes.count).toBe(1);
    },
  );
  it.each([true, false])('live=%s: in a hidden tab (the operator in the game client) a request that only the safety read brings still chimes and is counted', async (live) => {
    // Review finding: the reads ran only while the tab was shown (TanStack Query's default), so the chime came when
    // the operator came back, not when the request did.
    vi.useFakeTimers();
    document.title = 'Adena';
    localStorage.setItem('access_token', 'token');
    localStorage.removeItem('admin.signals');
    const chimes = stubAudio();
    // Hidden for this test only: the own property shadows happy-dom's getter until it is deleted.
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    try {
      let total = 0;
      vi.stubGlobal('fetch', vi.fn(async () => answer(200, { data: [], total })));
      const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
      root = createRoot(document.body.appendChild(document.createElement('div')));
      await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ShiftSignals, { created: 0, live }))));
      await act(async () => vi.advanceTimersByTimeAsync(10));
      total = 1;
      await act(async () => vi.advanceTimersByTimeAsync(60_000));
      expect({ title: document.title, chimes: chimes.count }).toEqual({ title: '(1) Adena', chimes: 1 });
    } finally {
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
  });
});
