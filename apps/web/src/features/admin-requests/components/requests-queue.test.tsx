// @vitest-environment happy-dom
import type { AdminRequest } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNTIL_CLOSED, useUi } from '../../../lib/ui-store';
import { answer, cleanup, settle } from '../../../test/dom';
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
  user: { id: 5, name: 'Ася', email: 'asya@example.com', phone: null, vip: false, blocked: false },
  processed_by: null,
  processed_at: null,
  claimed_by: null,
  claimed_at: null,
  claim_lapses_at: null,
  nick_shared: false,
  claim_dropped_by: null,
  processed_by_name: null,
};
/** The select whose label reads `label`: its shown value. */
const selectOf = (label: string) =>
  [...document.querySelectorAll<HTMLElement>('[role="combobox"]')].find((c) => document.getElementById(c.getAttribute('aria-labelledby') ?? '')?.textContent === label)!;

// The queue keeps its filters in the address: each test starts from the bare /admin.
beforeEach(() => history.replaceState(null, '', '/admin'));

describe('the operators’ queue filters', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });

  async function open(listed: AdminRequest = pending) {
    localStorage.setItem('access_token', 'token');
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(url);
        return answer(200, { data: [listed], total: 1 });
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
    expect(document.body.textContent).toContain('Сначала выводы VIP, затем по времени создания. Всего: 1');

    await act(async () => selectOf('Статус').dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0 })));
    const all = [...document.querySelectorAll('[role="option"]')].find((o) => o.textContent === 'Все')!;
    await act(async () => (all as HTMLElement).click());
    await settle();

    expect(selectOf('Статус').textContent).toBe('Все');
    expect(asked.at(-1)).not.toContain('status=');
    expect(document.body.textContent).toContain('Сначала ожидающие (выводы VIP, затем по времени создания), потом обработанные — новые выше. Всего: 1');
  });

  it('are kept in the address, so Back from a player’s card or a reload returns to the same filters and page', async () => {
    await open();
    expect(location.search).toBe('');
    await act(async () => selectOf('Статус').dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0 })));
    await act(async () => ([...document.querySelectorAll('[role="option"]')].find((o) => o.textContent === 'Все') as HTMLElement).click());
    await act(async () => selectOf('Тип').dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0 })));
    await act(async () => ([...document.querySelectorAll('[role="option"]')].find((o) => o.textContent === 'Выводы') as HTMLElement).click());
    await settle();
    expect(new URLSearchParams(location.search).get('status')).toBe('all');
    expect(new URLSearchParams(location.search).get('type')).toBe('output');

    // Opened again from such an address (Back, a reload): the same filters are shown and asked for.
    await cleanup(root);
    root = null;
    history.replaceState(null, '', '/admin?status=completed&type=input&currency_type=2&page=3');
    const again = await open();
    expect(selectOf('Статус').textContent).toBe('Выполнена');
    expect(selectOf('Тип').textContent).toBe('Пополнения');
    expect(selectOf('Валюта').textContent).toBe('Монеты');
    const q = new URL(again.at(-1)!, 'http://localhost').searchParams;
    expect([q.get('status'), q.get('type'), q.get('currency_type'), q.get('page')]).toEqual(['completed', 'input', '2', '3']);
  });

  it("another operator's claim holds the decision buttons until it lapses, then the card offers to take it over", async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const at = (min: number) => new Date(NOW.getTime() + min * 60_000).toISOString();
    await open({ ...pending, claimed_by: { id: 3, name: 'Анна' }, claimed_at: at(-1), claim_lapses_at: at(14) });
    const card = () => document.querySelector<HTMLElement>('[data-testid="admin-request"]')!;
    const button = (name: string) => [...card().querySelectorAll('button')].find((b) => b.textContent === name);
    expect(card().querySelector('[data-testid="claim-chip"]')?.textContent).toBe('В работе: Анна');
    expect(button('Монеты получены')?.disabled).toBe(true);
    expect(button('Отклонить')?.disabled).toBe(true);
    expect(card().querySelector('[data-testid="claim-lapse"]')?.textContent).toMatch(/^Взять себе можно с \d\d:\d\d, если захват не продлят\. Взята или продлена 1\u00a0мин назад\.$/);
    expect(button('Взять в работу')).toBeUndefined();

    // Fourteen minutes later nobody renewed it: no reload, no poll needed.
    await act(async () => vi.advanceTimersByTime(14 * 60_000 + 10));
    expect(card().querySelector('[data-testid="claim-chip"]')?.textContent).toBe('Захват истёк: Анна');
    expect(button('Монеты получены')?.disabled).toBe(false);
    expect(button('Отклонить')?.disabled).toBe(false);
    expect(button('Взять в работу')?.disabled).toBe(false);
    expect(card().querySelector('[data-testid="claim-lapse"]')).toBeNull();
  });

  it("the operator's own claim that lapsed all the same (the tab was closed) says so and offers to take it back", async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const at = (min: number) => new Date(NOW.getTime() + min * 60_000).toISOString();
    await open({ ...pending, claimed_by: { id: 1, name: 'Я' }, claimed_at: at(-14), claim_lapses_at: at(1) });
    const card = () => document.querySelector<HTMLElement>('[data-testid="admin-request"]')!;
    const button = (name: string) => [...card().querySelectorAll('button')].find((b) => b.textContent === name);
    expect(card().querySelector('[data-testid="claim-chip"]')?.textContent).toBe('В работе у вас');
    expect(button('Отпустить')).toBeDefined();
    await act(async () => vi.advanceTimersByTime(60_000 + 10));
    expect(card().querySelector('[data-testid="claim-chip"]')?.textContent).toBe('Ваш захват истёк');
    expect(button('Взять в работу')?.disabled).toBe(false);
  });

  it("a blocked player's withdrawal says so and cannot be completed, only rejected; their deposit can", async () => {
    const blocked = { ...pending.user, blocked: true };
    await open({ ...pending, type: 'output', user: blocked });
    const card = () => document.querySelector<HTMLElement>('[data-testid="admin-request"]')!;
    const complete = () => card().querySelector<HTMLButtonElement>('button.MuiButton-contained')!;
    const button = (name: string) => [...card().querySelectorAll('button')].find((b) => b.textContent === name);
    expect(card().querySelector('[data-testid="blocked-chip"]')?.textContent).toBe('Игрок заблокирован');
    expect(card().querySelector('[data-testid="blocked-payout"]')?.textContent).toContain('вывод не выдавайте');
    expect(complete().disabled).toBe(true);
    expect(button('Отклонить')?.disabled).toBe(false);
    await cleanup(root);
    root = null;
    await open({ ...pending, user: blocked });
    expect(card().querySelector('[data-testid="blocked-chip"]')).not.toBeNull();
    expect(card().querySelector('[data-testid="blocked-payout"]')).toBeNull();
    expect(complete().disabled).toBe(false);
  });

  it('a request created 9 min 59 s ago waits «9 мин», as the dashboard counts it', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    await open();
    expect(document.querySelector('[data-testid="admin-request"]')?.textContent).toContain('ждёт 9\u00a0мин');
  });
});

describe('the operators’ queue as the live feed and the server change it', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  async function open(respond: (url: URL) => Response | Promise<Response>) {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => respond(new URL(String(url), 'http://localhost'))),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    await settle();
    return qc;
  }
  const cards = () => [...document.querySelectorAll('[data-testid="admin-request"]')].map((c) => c.querySelector('p')?.textContent);
  const refresh = (qc: QueryClient) => act(async () => qc.invalidateQueries({ queryKey: ['admin', 'requests'] }));

  it('a page emptied by other operators’ decisions moves to the last page there is', async () => {
    let total = 21;
    const ids = () => Array.from({ length: total }, (_, i) => 100 + i);
    const qc = await open((url) => {
      const page = Number(url.searchParams.get('page'));
      const data = ids().slice((page - 1) * 20, page * 20).map((id) => ({ ...pending, id }));
      return answer(200, { data, total });
    });
    expect(cards()).toHaveLength(20);
    await act(async () => document.querySelector<HTMLButtonElement>('button[aria-label="Go to page 2"]')!.click());
    await settle();
    expect(cards()).toEqual(['Пополнение №120']);
    // Another operator decides one: the feed refreshes the queue, and page 2 is no more.
    total = 20;
    await refresh(qc);
    await settle();
    expect(cards()).toHaveLength(20);
    expect(cards()[0]).toBe('Пополнение №100');
  });

  it('a new page from the pager under the cards starts at the queue’s top, not scrolled to its bottom', async () => {
    // Chromium walk: page 2 was shown with the window still at the pager, 20 cards below the queue's top.
    const ids = Array.from({ length: 45 }, (_, i) => 100 + i);
    await open((url) => {
      const page = Number(url.searchParams.get('page'));
      return answer(200, { data: ids.slice((page - 1) * 20, page * 20).map((id) => ({ ...pending, id })), total: ids.length });
    });
    // Scrolled down to the pager: the queue's top is 1500 px above the window.
    const rect = vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(() => ({ top: -1500, bottom: -1400 }) as DOMRect);
    const scrollBy = vi.fn();
    vi.stubGlobal('scrollBy', scrollBy);
    await act(async () => document.querySelector<HTMLButtonElement>('button[aria-label="Go to page 2"]')!.click());
    await settle();
    rect.mockRestore();
    expect(cards()[0]).toBe('Пополнение №120');
    expect(scrollBy).toHaveBeenCalledTimes(1);
    expect(scrollBy.mock.calls[0]![0].top).toBeLessThanOrEqual(-1500);
  });

  it('a refresh that fails says so above the queue it could not refresh, which stays', async () => {
    let down = false;
    const qc = await open(() => (down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, { data: [pending], total: 1 })));
    expect(cards()).toEqual(['Пополнение №7']);
    down = true;
    await refresh(qc);
    await settle();
    expect(document.querySelector('[role="alert"]')?.textContent).toBe('Сервис временно недоступен');
    expect(cards()).toEqual(['Пополнение №7']);
  });

  it('a completion refused after the dialog closed names its request', async () => {
    await open((url) =>
      url.pathname.endsWith('/complete')
        ? answer(409, { message: 'Заявка уже обработана', errors: { id: ['Заявка уже обработана'] } })
        : answer(200, { data: [pending], total: 1 }),
    );
    const card = document.querySelector('[data-testid="admin-request"]')!;
    await act(async () => card.querySelector<HTMLButtonElement>('button.MuiButton-contained')!.click());
    await act(async () => document.querySelector<HTMLButtonElement>('[data-testid="complete-dialog"] button.MuiButton-contained')!.click());
    await settle();
    expect(useUi.getState().dialog).toMatchObject({ name: 'alert', text: 'Заявка №7: Заявка уже обработана' });
  });

  it('the completion dialog is described by its question, so a screen reader reads the amount, character and server with its title', async () => {
    await open(() => answer(200, { data: [pending], total: 1 }));
    const card = document.querySelector('[data-testid="admin-request"]')!;
    await act(async () => card.querySelector<HTMLButtonElement>('button.MuiButton-contained')!.click());
    const dialog = document.querySelector('[data-testid="complete-dialog"] [role="dialog"]')!;
    const described = document.getElementById(dialog.getAttribute('aria-describedby') ?? '');
    expect(described?.textContent).toMatch(/301\u00a0монет.*Hero.*Scryde x50/);
  });

  it.each([
    [403, 'Недостаточно прав для этого действия'],
    [503, 'Сервис временно недоступен'],
  ])('a completion refused with %i stays said until the operator closes it: they look back from the game client later', async (status, message) => {
    // Review finding: the refusal closed itself after ALERT_TIMEOUT_MS, and the card looked as if the payout was recorded.
    await open((url) => (url.pathname.endsWith('/complete') ? answer(status, { message }) : answer(200, { data: [pending], total: 1 })));
    const card = document.querySelector('[data-testid="admin-request"]')!;
    await act(async () => card.querySelector<HTMLButtonElement>('button.MuiButton-contained')!.click());
    await act(async () => document.querySelector<HTMLButtonElement>('[data-testid="complete-dialog"] button.MuiButton-contained')!.click());
    await settle();
    expect(useUi.getState().dialog).toEqual({ name: 'alert', text: `Заявка №7: ${message}`, errors: [], timeout: UNTIL_CLOSED });
  });
});

describe('a request whose nick another player gave too', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('says so on its card while it is pending, so the operator checks who sent the adena', async () => {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer(200, { data: [{ ...pending, nick_shared: true }, { ...pending, id: 8 }], total: 2 })),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    await settle();
    const notes = [...document.querySelectorAll('[data-testid="nick-shared"]')].map((n) => n.textContent);
    expect(notes).toEqual(['Этот ник указал и другой игрок на этом сервере: убедитесь, что адену передал владелец заявки.']);
  });
});

describe('a request whose operator was blocked or demoted while holding it', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('says who held it, so the next operator checks in game whether it changed hands', async () => {
    localStorage.setItem('access_token', 'token');
    const withdrawal = { ...pending, id: 9, type: 'output' as const, claim_dropped_by: { id: 4, name: 'Глеб' } };
    const coins = { ...pending, id: 10, claim_dropped_by: { id: 4, name: '' } };
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { data: [withdrawal, { ...pending, id: 8 }, coins], total: 3 })));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    await settle();
    const notes = [...document.querySelectorAll('[data-testid="claim-dropped"]')].map((n) => n.textContent);
    expect(notes).toEqual([
      'Заявку вёл Глеб, его захват снят без решения: проверьте в игре, не передана ли уже сумма. Игрок не может отменить заявку, пока оператор не выполнит или не отклонит её (или не возьмёт и отпустит).',
      'Заявку вёл оператор №4, его захват снят без решения: проверьте в игре, не получены ли уже монеты. Игрок не может отменить заявку, пока оператор не выполнит или не отклонит её (или не возьмёт и отпустит).',
    ]);
  });
});

describe('a decided request in the queue («Статус: Все»)', () => {
  // From the Chromium walk: «Выполнена №1», «Отклонена №2» showed only when they were created, not who decided them or when.
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('says when it was decided and by which operator; a cancelled one, that its player cancelled it', async () => {
    localStorage.setItem('access_token', 'token');
    const decided = (patch: Partial<AdminRequest>): AdminRequest => ({ ...pending, processed_at: '2026-11-01T12:30:00.000Z', ...patch });
    const listed = [
      // Claimed and decided by the same operator: named.
      decided({ id: 1, status: 'completed', processed_by: 3, processed_by_name: 'Анна', claimed_by: { id: 3, name: 'Анна' }, claimed_at: '2026-11-01T12:00:00.000Z' }),
      // Decided by someone else than its lapsed claim's holder: named all the same.
      decided({ id: 2, status: 'rejected', comment: 'Адена не пришла', processed_by: 4, processed_by_name: 'Борис', claimed_by: { id: 3, name: 'Анна' }, claimed_at: '2026-11-01T12:00:00.000Z' }),
      // An operator account without a name: by number.
      decided({ id: 6, status: 'completed', processed_by: 5, processed_by_name: '' }),
      decided({ id: 3, status: 'completed', processed_by: 1 }),
      decided({ id: 4, status: 'cancelled', processed_by: null }),
      { ...pending, id: 5 },
    ];
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { data: listed, total: listed.length })));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    await settle();
    const at = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' }).format(new Date('2026-11-01T12:30:00.000Z'));
    const lines = [...document.querySelectorAll('[data-testid="admin-request"]')].map((c) => c.querySelector('[data-testid="decided"]')?.textContent ?? null);
    expect(lines).toEqual([
      `Решена ${at} · оператор Анна`,
      `Решена ${at} · оператор Борис`,
      `Решена ${at} · оператор №5`,
      `Решена ${at} · вами`,
      `Отменена игроком ${at}`,
      null,
    ]);
  });
});

describe('the live queue', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
    useUi.setState({ dialog: { name: 'none' } });
  });

  async function open(respond: (url: URL, init?: RequestInit) => Response | Promise<Response>) {
    localStorage.setItem('access_token', 'token');
    const fetch = vi.fn(async (url: string, init?: RequestInit) => respond(new URL(String(url), 'http://localhost'), init));
    vi.stubGlobal('fetch', fetch);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    return fetch;
  }
  const cards = () => [...document.querySelectorAll('[data-testid="admin-request"]')].map((c) => c.querySelector('p')?.textContent);
  const buttonIn = (within: ParentNode, name: string) => [...within.querySelectorAll('button')].find((b) => b.textContent === name);

  it('is still read each minute while the feed is up, so a request whose event was lost shows up', async () => {
    vi.useFakeTimers({ now: NOW });
    let listed: AdminRequest[] = [];
    const fetch = await open(() => answer(200, { data: listed, total: listed.length }));
    await act(async () => vi.advanceTimersByTimeAsync(10));
    expect(document.body.textContent).toContain('Заявок нет.');
    // The request comes in; its event is lost while the server's LISTEN connection reconnects.
    listed = [pending];
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    expect(fetch).toHaveBeenCalledTimes(1);
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(cards()).toEqual(['Пополнение №7']);
  });

  it('«Отклонить» names the request as «Выполнить» does: type, amount, character, server and player', async () => {
    const withdrawal: AdminRequest = { ...pending, id: 8, type: 'output', currency_type: 1, amount: 21, nick: 'Robber' };
    await open(() => answer(200, { data: [pending, withdrawal], total: 2 }));
    await settle();
    const [deposit, output] = [...document.querySelectorAll<HTMLElement>('[data-testid="admin-request"]')];
    const question = () => document.querySelector('[data-testid="reject-dialog"] [data-testid="reject-question"]')?.textContent;
    await act(async () => buttonIn(deposit!, 'Отклонить')!.click());
    await settle();
    expect(document.querySelector('[data-testid="reject-dialog"]')?.textContent).toContain('Отклонить заявку №7');
    expect(question()).toBe('Пополнение на 301\u00a0монету эйнхасад от персонажа Hero на Scryde x50, игрок Ася (asya@example.com).');
    await act(async () => buttonIn(document.querySelector('[data-testid="reject-dialog"]')!, 'Отмена')!.click());
    await settle();
    await act(async () => buttonIn(output!, 'Отклонить')!.click());
    await settle();
    expect(question()).toBe('Вывод 21\u00a0адены персонажу Robber на Scryde x50, игрок Ася (asya@example.com).');
  });

  it('a long e-mail breaks inside itself on the card and in «Отклонить», rather than running off a 390 px screen', async () => {
    // Chromium walk at 390 px: «verylongname…@example.com» stayed on one line and widened the card past the screen.
    const long: AdminRequest = { ...pending, comment: 'x'.repeat(80), user: { ...pending.user, email: `${'a'.repeat(60)}@example.com` } };
    await open(() => answer(200, { data: [long], total: 1 }));
    await settle();
    const card = document.querySelector<HTMLElement>('[data-testid="admin-request"]')!;
    const player = card.querySelector<HTMLElement>('[data-testid="request-player"]')!;
    expect(player.textContent).toContain(long.user.email);
    expect(getComputedStyle(player).overflowWrap).toBe('anywhere');
    const comment = [...card.querySelectorAll<HTMLElement>('p')].find((p) => p.textContent?.startsWith('Комментарий:'))!;
    expect(getComputedStyle(comment).overflowWrap).toBe('anywhere');
    await act(async () => buttonIn(card, 'Отклонить')!.click());
    await settle();
    const question = document.querySelector<HTMLElement>('[data-testid="reject-dialog"] [data-testid="reject-question"]')!;
    expect(question.textContent).toContain(long.user.email);
    expect(getComputedStyle(question).overflowWrap).toBe('anywhere');
  });

  it('one completion waiting for its answer does not grey out «Выполнить» of another request, only of its own', async () => {
    const other: AdminRequest = { ...pending, id: 8, nick: 'Other' };
    const releases: Array<(r: Response) => void> = [];
    const completes: string[] = [];
    await open((url) => {
      if (url.pathname.endsWith('/complete')) {
        completes.push(url.pathname);
        return new Promise<Response>((r) => releases.push(r));
      }
      return answer(200, { data: [pending, other], total: 2 });
    });
    await settle();
    const card = (i: number) => document.querySelectorAll<HTMLElement>('[data-testid="admin-request"]')[i]!;
    const confirmButton = () => document.querySelector<HTMLButtonElement>('[data-testid="complete-dialog"] button.MuiButton-contained')!;
    await act(async () => buttonIn(card(0), 'Монеты получены')!.click());
    await act(async () => confirmButton().click());
    await settle();
    expect(completes).toEqual(['/api/admin/requests/7/complete']);

    // №7's answer is still on its way: №8 can be completed meanwhile.
    await act(async () => buttonIn(card(1), 'Монеты получены')!.click());
    await settle();
    expect(document.querySelector('[data-testid="complete-dialog"]')?.textContent).toContain('Выполнить заявку №8?');
    expect(confirmButton().disabled).toBe(false);
    // №8 is sent too, and waits as well (the latest completion: the mutation's variables now name №8).
    await act(async () => confirmButton().click());
    await settle();
    expect(completes).toEqual(['/api/admin/requests/7/complete', '/api/admin/requests/8/complete']);
    // №7 itself, opened again while its completion waits, is not sent twice.
    await act(async () => buttonIn(card(0), 'Монеты получены')!.click());
    await settle();
    expect(confirmButton().disabled).toBe(true);
    await act(async () => releases[0]!(answer(200, { success: { ...pending, status: 'completed' } })));
    await act(async () => releases[1]!(answer(200, { success: { ...other, status: 'completed' } })));
    await settle();
    expect(completes).toHaveLength(2);
  });
});

describe('focus after a decision, for an operator working the queue by keyboard', () => {
  // From the Chromium walk: the decided card left with the button that opened its dialog, MUI gave focus back to
  // that removed button, and the next Tab started from the admin menu.
  let root: Root | null = null;
  let dropping: MutationObserver | null = null;
  afterEach(async () => {
    dropping?.disconnect();
    dropping = null;
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' } });
  });
  /** As Chromium does (happy-dom keeps it there): a focused button that becomes disabled loses focus to <body>. */
  const dropFocusFromDisabled = () => {
    dropping = new MutationObserver(() => {
      if ((document.activeElement as HTMLButtonElement | null)?.disabled) document.body.focus();
    });
    dropping.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['disabled'] });
  };

  /**
   * The queue over a server that keeps `listed` (pending requests), deciding and claiming them as asked.
   * `keepDecided`: «Статус: Все» lists a decided request on, without its buttons; `sorted`: pending first, then the
   * decided ones (`decided`, listed from the start), as the server orders them; `takenBy`: a decision refused (409)
   * because that operator took the request meanwhile, which the queue then shows held by them.
   */
  async function open(ids: number[], { keepDecided = false, sorted = false, decided = [] as number[], takenBy = null as { id: number; name: string } | null } = {}) {
    localStorage.setItem('access_token', 'token');
    let listed = [...ids.map((id): AdminRequest => ({ ...pending, id })), ...decided.map((id): AdminRequest => ({ ...pending, id, status: 'completed' }))];
    const shown = () => (sorted ? [...listed.filter((x) => x.status === 'pending'), ...listed.filter((x) => x.status !== 'pending')] : listed);
    const decide = (id: number) => {
      const r = listed.find((x) => x.id === id)!;
      if (takenBy) {
        listed = listed.map((x) => (x.id === id ? { ...x, claimed_by: takenBy, claimed_at: pending.created_at, claim_lapses_at: '2099-01-01T00:00:00.000Z' } : x));
        return answer(409, { message: 'Заявку взял другой оператор' });
      }
      listed = keepDecided ? listed.map((x) => (x.id === id ? { ...x, status: 'completed' } : x)) : listed.filter((x) => x.id !== id);
      return answer(200, { success: { ...r, status: 'completed' } });
    };
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: string) => {
        const url = new URL(String(input), 'http://localhost');
        const id = Number(url.pathname.split('/')[4]);
        if (url.pathname.endsWith('/complete') || url.pathname.endsWith('/reject')) return decide(id);
        if (url.pathname.endsWith('/claim')) {
          listed = listed.map((x) => (x.id === id ? { ...x, claimed_by: { id: 1, name: 'Я' }, claimed_at: pending.created_at, claim_lapses_at: '2099-01-01T00:00:00.000Z' } : x));
          return answer(200, { success: listed.find((x) => x.id === id) });
        }
        return answer(200, { data: shown(), total: listed.length });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(RequestsQueue, { servers: [], meId: 1, live: true }))));
    await settle();
  }
  const card = (id: number) =>
    [...document.querySelectorAll<HTMLElement>('[data-testid="admin-request"]')].find((c) => c.querySelector('p')?.textContent === `Пополнение №${id}`);
  const cards = () => [...document.querySelectorAll('[data-testid="admin-request"]')].map((c) => c.querySelector('p')?.textContent);
  const buttonIn = (within: ParentNode | undefined, name: string) => [...(within?.querySelectorAll('button') ?? [])].find((b) => b.textContent === name);
  /** The focused button's name and the card it is on: «Отклонить @ №9». */
  const focused = () => {
    const a = document.activeElement as HTMLElement | null;
    if (!a || a === document.body) return 'body';
    const on = a.closest('[data-testid="admin-request"]')?.querySelector('p')?.textContent;
    return on ? `${a.textContent} @ ${on.replace('Пополнение ', '')}` : a.textContent;
  };
  /** Long enough for a dialog's closing transition to end and the page to drop it. */
  const dialogGone = () => act(async () => new Promise((r) => setTimeout(r, 400)));
  const press = async (b: HTMLButtonElement | undefined) => {
    expect(b).toBeDefined();
    await act(async () => {
      b!.focus();
      b!.click();
    });
    await settle();
  };

  it('a rejection moves focus to the next card’s «Отклонить»', async () => {
    await open([7, 8, 9]);
    await press(buttonIn(card(8), 'Отклонить'));
    const dialog = () => document.querySelector('[data-testid="reject-dialog"]')!;
    const reason = dialog().querySelector('textarea')!;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(reason, 'Адена не пришла');
      reason.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await press(buttonIn(dialog(), 'Отклонить'));
    await settle();
    await dialogGone();
    expect(card(8)).toBeUndefined();
    expect(focused()).toBe('Отклонить @ №9');
  });

  it('a completion of the last card moves focus to the previous card’s «Монеты получены», and of the only one to «Заявок нет.»', async () => {
    await open([7, 9]);
    // №9 is the last card: its completion leaves focus on №7's «Монеты получены».
    await press(buttonIn(card(9), 'Монеты получены'));
    await press(buttonIn(document.querySelector('[data-testid="complete-dialog"]')!, 'Монеты получены'));
    await settle();
    await dialogGone();
    expect(card(9)).toBeUndefined();
    expect(focused()).toBe('Монеты получены @ №7');

    // The last request decided: «Заявок нет.» takes focus, not the admin menu above.
    await press(buttonIn(card(7), 'Монеты получены'));
    await press(buttonIn(document.querySelector('[data-testid="complete-dialog"]')!, 'Монеты получены'));
    await settle();
    await dialogGone();
    expect(document.activeElement?.textContent).toBe('Заявок нет.');
    expect(document.activeElement?.getAttribute('tabindex')).toBe('-1');
  });

  it('with every status shown, the completed card stays without its buttons: focus goes to the next card’s «Монеты получены»', async () => {
    await open([7, 8], { keepDecided: true });
    await press(buttonIn(card(7), 'Монеты получены'));
    await press(buttonIn(document.querySelector('[data-testid="complete-dialog"]')!, 'Монеты получены'));
    await settle();
    await dialogGone();
    expect(card(7)?.textContent).toContain('Выполнена');
    expect(buttonIn(card(7), 'Монеты получены')).toBeUndefined();
    expect(focused()).toBe('Монеты получены @ №8');
  });

  it('«Взять в работу» leaves focus on the «Отпустить» that takes its place, though its button was disabled while the call ran', async () => {
    await open([7, 8]);
    const take = buttonIn(card(7), 'Взять в работу')!;
    await act(async () => {
      take.focus();
      take.click();
      // Chromium drops focus from a button disabled while its call runs.
      take.blur();
    });
    await settle();
    await settle();
    expect(buttonIn(card(7), 'Отпустить')).toBeDefined();
    expect(focused()).toBe('Отпустить @ №7');
  });

  it('with every status shown, a completed card that moves below the pending ones sends focus to the card that was after it, not to the last pending one', async () => {
    // Review finding: the hook read the order again with the decided card at its new place, below №10: no card after
    // it had buttons, and focus went to №10, the last pending card, instead of №8.
    await open([7, 8, 9, 10], { keepDecided: true, sorted: true, decided: [3] });
    await press(buttonIn(card(7), 'Монеты получены'));
    await press(buttonIn(document.querySelector('[data-testid="complete-dialog"]')!, 'Монеты получены'));
    await settle();
    await dialogGone();
    expect(cards()).toEqual(['Пополнение №8', 'Пополнение №9', 'Пополнение №10', 'Пополнение №7', 'Пополнение №3']);
    expect(focused()).toBe('Монеты получены @ №8');
  });

  it('a completion refused because another operator took the request leaves its buttons disabled: focus goes to the next card’s, not to <body>', async () => {
    // Review finding: the card stayed with its buttons disabled (another operator's claim), the hook gave up on a
    // disabled control, and Chromium dropped focus to <body>.
    dropFocusFromDisabled();
    await open([7, 8, 9], { takenBy: { id: 3, name: 'Анна' } });
    await press(buttonIn(card(7), 'Монеты получены'));
    await press(buttonIn(document.querySelector('[data-testid="complete-dialog"]')!, 'Монеты получены'));
    await settle();
    await dialogGone();
    expect(useUi.getState().dialog).toMatchObject({ name: 'alert', text: 'Заявка №7: Заявку взял другой оператор' });
    expect(buttonIn(card(7), 'Монеты получены')?.disabled).toBe(true);
    expect(focused()).toBe('Монеты получены @ №8');
  });

  it('a rejection refused because another operator took the request: after «Отмена» focus goes to the next card’s «Отклонить», not to the disabled one', async () => {
    // Review finding: MUI gave focus back to the card's «Отклонить», disabled by the other operator's claim, and
    // Chromium dropped it to <body>.
    dropFocusFromDisabled();
    await open([7, 8, 9], { takenBy: { id: 3, name: 'Анна' } });
    await press(buttonIn(card(7), 'Отклонить'));
    const dialog = () => document.querySelector('[data-testid="reject-dialog"]')!;
    const reason = dialog().querySelector('textarea')!;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(reason, 'Адена не пришла');
      reason.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await press(buttonIn(dialog(), 'Отклонить'));
    await settle();
    // The refusal is said in the dialog, which stays; the card's buttons are disabled behind it.
    expect(dialog().textContent).toContain('Заявку взял другой оператор');
    expect(buttonIn(card(7), 'Отклонить')?.disabled).toBe(true);
    await press(buttonIn(dialog(), 'Отмена'));
    await dialogGone();
    expect(focused()).toBe('Отклонить @ №8');
  });
});
