// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endSession, startSession, userQueryOptions } from '../../../lib/session';
import { answer, cleanup, playerUser, settle, type } from '../../../test/dom';
import CodesTab from './codes-tab';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const server = { id: 1, name: 'Scryde x50', code_fee_bp: 300, vip_code_fee_bp: 100, min_nominal: 100_000 } as Gamesserver;

describe('the codes tab, signed out', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('keeps the nominals it showed when a refresh fails (a restart of the service)', async () => {
    let down = false;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (String(url).startsWith('/api/varianty_adeny_za_kod/')) {
          return down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, { standard_nominals: [{ nominal: 1_000_000, price: 1_030_000 }] });
        }
        if (String(url) === '/api/gamesservers') return answer(200, [server]);
        return answer(401, { message: 'Требуется вход' });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(CodesTab, { server, topUp: () => null }))));
    const tiles = () => document.querySelector('[data-testid="nominals"]')?.textContent ?? '';
    const nominal = '1 030 000'.replace(/ /g, '\u00a0');
    // On a busy machine (the whole suite in parallel) the first answers take longer than one settle().
    for (let i = 0; i < 100 && !tiles().includes(nominal); i++) await settle();
    expect(tiles()).toContain(nominal);
    down = true;
    await act(async () => qc.invalidateQueries({ queryKey: ['codes', 'price-data'] }));
    await settle();
    expect(tiles()).not.toContain('Не удалось загрузить коды');
    expect(tiles()).toContain('1 030 000'.replace(/ /g, '\u00a0'));
  });
});

describe('the codes tab, a nominal tile', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('wraps its nominal and price before «аден» as a whole word, never inside the number or the word', async () => {
    // Chromium walk of the mini app at 360 px: «цена 10 300 000 аде / н» — overflowWrap 'anywhere' on a text joined
    // with no-break spaces. Layout is not measured here (happy-dom): the text and the computed styles that decide it
    // are; the codes e2e screenshots at 360 px show the wrap. The nominal «100кк аден», joined the same way, ran past
    // the tile's edge there.
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (String(url).startsWith('/api/varianty_adeny_za_kod/')) return answer(200, { standard_nominals: [{ nominal: 100_000_000, price: 103_000_000 }] });
        if (String(url) === '/api/gamesservers') return answer(200, [server]);
        return answer(401, { message: 'Требуется вход' });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(CodesTab, { server, topUp: () => null }))));
    const price = () => [...document.querySelectorAll<HTMLElement>('[data-testid="nominal"] p')].find((p) => p.textContent?.startsWith('цена'));
    for (let i = 0; i < 100 && !price(); i++) await settle();
    const el = price()!;
    // No-break spaces inside the number only; an ordinary space before the unit, where the line may break.
    expect(el.textContent).toBe('цена 103\u00a0000\u00a0000 аден');
    expect(getComputedStyle(el).overflowWrap).not.toBe('anywhere');
    expect(getComputedStyle(el).wordBreak).not.toBe('break-all');
    const number = [...el.querySelectorAll('span')].find((s) => s.textContent === '103\u00a0000\u00a0000');
    expect(number).toBeDefined();
    expect(getComputedStyle(number!).whiteSpace).toBe('nowrap');
    const nominal = document.querySelector('[data-testid="nominal"] p')!;
    expect(nominal.textContent).toBe('100кк аден');
    expect(getComputedStyle(nominal.querySelector('span')!).whiteSpace).toBe('nowrap');
  });
});

describe('the codes tab, another account signed in', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('another account signed in on this tab opens «Все мои коды» folded, and then on its first page with no status filter, not as the last account left it', async () => {
    // Review finding: the tab was keyed by server only: player B's list of all codes stayed open on player A's page 2
    // under A's «Активные» filter.
    const code = (id: number) => ({
      id,
      nominal: 1_000_000,
      price: 1_030_000,
      status: 'active' as const,
      sert: `ADN-AAAA-BBBB-CCCC-${String(id).padStart(4, '0')}`,
      gamesserver_id: 1,
      pricekod_id: null,
      created_at: '2026-11-01T12:00:00Z',
      activated_at: null,
    });
    const priceData = {
      id: 1,
      gamesserver: { id: 1, name: 'Scryde x50' },
      kods: [],
      pricekods: [],
      svoy_variant_kods: [],
      standard_nominals: [{ nominal: 1_000_000, price: 1_030_000 }],
      code_fee_bp: 300,
      min_nominal: 100_000,
      wallet: { id: 3, balance: 0, balance_second: 0 },
      nick: null,
      save_nick: null,
      telegram_price: null,
      user_kod: null,
    };
    localStorage.setItem('access_token', 'token-a');
    const fetch = vi.fn(async (url: string) => {
      const u = new URL(url, 'http://x');
      if (u.pathname === '/api/my_codes') {
        const page = Number(u.searchParams.get('page'));
        return answer(200, { data: Array.from({ length: 20 }, (_, i) => code(page * 100 + i)), total: 45 });
      }
      if (u.pathname.startsWith('/api/auth_varianty_adeny_za_kod/')) return answer(200, priceData);
      if (u.pathname === '/api/gamesservers') return answer(200, [server]);
      if (u.pathname === '/api/wallets') return answer(200, []);
      if (u.pathname.includes('error_user_code')) return answer(200, { error_codes_count: 0 });
      return answer(404, { message: 'Не найдено' });
    });
    vi.stubGlobal('fetch', fetch);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(CodesTab, { server, topUp: () => null }))));
    const toggle = () => document.querySelector<HTMLButtonElement>('[data-testid="all-codes-toggle"]');
    for (let i = 0; i < 100 && !toggle(); i++) await settle();
    await act(async () => toggle()!.click());
    await settle();
    const chip = (label: string) => [...document.querySelectorAll<HTMLElement>('[aria-label="Статус кода"] [aria-pressed]')].find((c) => c.textContent === label)!;
    await act(async () => chip('Активные').click());
    await settle();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Go to page 2"]')!.click());
    await settle();
    const reads = () => fetch.mock.calls.map(([url]) => new URL(url, 'http://x')).filter((u) => u.pathname === '/api/my_codes');
    expect(reads().at(-1)!.searchParams.get('page')).toBe('2');
    expect(reads().at(-1)!.searchParams.get('status')).toBe('active');

    await act(async () => startSession(qc, { access_token: 'token-b', user: { ...playerUser(false), id: 6, name: 'Другой' } }));
    await settle();
    expect(toggle()!.getAttribute('aria-expanded')).toBe('false');
    await act(async () => toggle()!.click());
    await settle();
    expect(reads().at(-1)!.searchParams.get('page')).toBe('1');
    expect(reads().at(-1)!.searchParams.has('status')).toBe(false);
    expect(chip('Все').getAttribute('aria-pressed')).toBe('true');
    expect(document.querySelector('[aria-current="page"]')?.textContent).toBe('1');
  });
});

describe('the codes tab while the user read is on its way', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  const field = () => document.querySelector<HTMLInputElement>('[data-testid="activation"] input')!;
  const typed = 'ADN-AAAA-BBBB-CCCC-DDDD';

  /** The codes tab with a token held; `/api/user` answered by `user()`, every other read a plain answer. */
  async function open(user: () => Promise<Response>) {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const u = new URL(url, 'http://x');
        if (u.pathname === '/api/user') return user();
        if (u.pathname === '/api/gamesservers') return answer(200, [server]);
        if (u.pathname.startsWith('/api/varianty_adeny_za_kod/')) return answer(200, { standard_nominals: [] });
        if (u.pathname === '/api/wallets') return answer(200, []);
        return answer(404, { message: 'Не найдено' });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(CodesTab, { server, topUp: () => null }))));
    await settle();
    return qc;
  }

  it('a code typed while the user read is on its way (a slow cold start) stays when it answers; a sign-out then clears it', async () => {
    // Review finding: the tab was keyed by `${user?.id ?? 'none'}`: the read's answer changed the key from «none» to the
    // player's id and the activation form, remounted, lost the code typed meanwhile.
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const qc = await open(async () => {
      await gate;
      return answer(200, playerUser(false));
    });
    expect(qc.getQueryState(userQueryOptions().queryKey)?.status).toBe('pending');
    await act(async () => type(field(), typed));
    expect(field().value).toBe(typed);
    await act(async () => release());
    await settle();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toMatchObject({ id: 5 });
    expect(field().value).toBe(typed);

    // Signed out (a shared device): the next person does not find the code in the field.
    await act(async () => endSession(qc));
    await settle();
    expect(field().value).toBe('');
  });

  it('a code typed while the user read has failed stays when «Повторить» reads it', async () => {
    let down = true;
    const qc = await open(async () => (down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, playerUser(false))));
    expect(document.querySelector('[data-testid="user-read-failed"]')).not.toBeNull();
    await act(async () => type(field(), typed));
    down = false;
    const retry = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Повторить')!;
    await act(async () => retry.click());
    await settle();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toMatchObject({ id: 5 });
    expect(document.querySelector('[data-testid="user-read-failed"]')).toBeNull();
    expect(field().value).toBe(typed);
  });
});
