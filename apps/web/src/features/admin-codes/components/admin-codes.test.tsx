// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { AdminCodes } from './admin-codes';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const person: { id: number; name: string; email: string | null } = { id: 5, name: 'Продавец', email: 'seller@example.com' };
const story = (status: 'active' | 'activated') => ({
  code: {
    id: 12,
    sert: 'ADN-7KQ2-****-****-H3RC',
    sert_masked: true,
    status,
    gamesserver_id: 1,
    gamesserver: 'Scryde x50',
    nominal: 1000,
    fee: 10,
    price: 1010,
    pricekod_id: null,
    issuer: person,
    activated_by: status === 'activated' ? { id: 6, name: 'Покупатель', email: null } : null,
    cancelled_by: null,
    created_at: '2026-11-01T10:00:00.000Z',
    activated_at: status === 'activated' ? '2026-11-01T10:05:00.000Z' : null,
    cancelled_at: null,
  },
  attempts: [],
  incidents: [],
  ledger: [],
});

describe("the operators' code lookup", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    history.replaceState(null, '', '/');
  });

  it('shows in its box the code the address names, after Back as well', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => answer(404, { message: 'Код не найден' })));
    history.replaceState(null, '', '/admin/codes?sert=ADN-AAAA-BBBB');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
    const box = () => document.querySelector('input') as HTMLInputElement;
    expect(box().value).toBe('ADN-AAAA-BBBB');
    await act(async () => history.pushState(null, '', '/admin/codes?id=12'));
    await settle();
    expect(box().value).toBe('12');
    await act(async () => {
      history.back();
      await new Promise((r) => setTimeout(r, 50));
    });
    await settle();
    expect(location.search).toBe('?sert=ADN-AAAA-BBBB');
    expect(box().value).toBe('ADN-AAAA-BBBB');
  });

  // A refused cancel: the code was activated (409) or is gone (404) while the card showed «Активен».
  it.each([
    [409, 'Код уже активирован'],
    [404, 'Код не найден'],
  ])('reads the code again after a cancel refused with %i, so the card shows its real state', async (status, message) => {
    let stored: 'active' | 'activated' | 'gone' = 'active';
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      if (init?.method === 'POST') {
        stored = status === 409 ? 'activated' : 'gone';
        return answer(status, { message });
      }
      return stored === 'gone' ? answer(404, { message: 'Код не найден' }) : answer(200, story(stored));
    });
    vi.stubGlobal('fetch', fetch);
    history.replaceState(null, '', '/admin/codes?id=12');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
    const card = () => document.querySelector('[data-testid="admin-code"]')?.textContent ?? '';
    const button = (label: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === label);
    expect(card()).toContain('Активен');
    await act(async () => button('Отменить с возвратом')!.click());
    await settle();
    const reason = document.querySelector<HTMLTextAreaElement>('[data-testid="admin-cancel-code-dialog"] textarea:not([aria-hidden])')!;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(reason, 'Игрок просил');
      reason.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => button('Отменить код')!.click());
    await settle();
    await settle();
    const reads = fetch.mock.calls.filter(([, init]) => init?.method !== 'POST').length;
    expect(reads).toBe(2);
    if (status === 409) {
      expect(card()).toContain('Активирован');
      expect(card()).not.toContain('Активен');
      expect(button('Отменить с возвратом')).toBeUndefined();
      expect(document.querySelector('[data-testid="admin-cancel-code-dialog"]')?.textContent).toContain('Код уже активирован');
    } else {
      expect(card()).toBe('');
      expect(document.body.textContent).toContain('Такого кода нет.');
    }
  });
  it('a cancel and the re-read it causes both failing (503) keep the card and the dialog with its reason; sent again, it goes', async () => {
    let down = true;
    const cancels: unknown[] = [];
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      if (init?.method === 'POST') {
        if (down) return answer(503, { message: 'Сервис временно недоступен' });
        cancels.push(JSON.parse(String(init.body)));
        return answer(200, { success: { ...story('active').code, status: 'cancelled', cancelled_at: '2026-11-01T11:00:00.000Z' }, summa: 1010 });
      }
      // The first read is answered; the ones after it wait for the server to come back.
      return fetch.mock.calls.length > 1 && down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, story('active'));
    });
    vi.stubGlobal('fetch', fetch);
    history.replaceState(null, '', '/admin/codes?id=12');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
    const card = () => document.querySelector('[data-testid="admin-code"]')?.textContent ?? '';
    const dialog = () => document.querySelector('[data-testid="admin-cancel-code-dialog"]');
    const reason = () => dialog()!.querySelector<HTMLTextAreaElement>('textarea:not([aria-hidden])')!;
    const button = (label: string, within: ParentNode = document) => [...within.querySelectorAll('button')].find((b) => b.textContent === label);
    await act(async () => button('Отменить с возвратом')!.click());
    await settle();
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(reason(), 'Игрок просил');
      reason().dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => button('Отменить код', dialog()!)!.click());
    await settle();
    await settle();
    expect(fetch.mock.calls.filter(([, init]) => init?.method !== 'POST')).toHaveLength(2);
    expect(card()).toContain('Активен');
    expect(document.querySelector('[data-testid="admin-code-stale"]')?.textContent).toContain('Сервис временно недоступен');
    expect(dialog()?.textContent).toContain('Сервис временно недоступен');
    expect(reason().value).toBe('Игрок просил');

    down = false;
    await act(async () => button('Отменить код', dialog()!)!.click());
    await settle();
    await settle();
    expect(cancels).toEqual([{ reason: 'Игрок просил' }]);
    expect(document.querySelector('[data-testid="admin-code-stale"]')).toBeNull();
  });

  it('the cancel dialog names who gets the refund by name, else email, else id: a player signed up by phone with no name is not «(null)»', async () => {
    const phoneOnly = story('active');
    phoneOnly.code.issuer = { id: 5, name: '', email: null };
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, phoneOnly)));
    history.replaceState(null, '', '/admin/codes?id=12');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Отменить с возвратом')!.click());
    await settle();
    const text = document.querySelector('[data-testid="admin-cancel-code-dialog"]')?.textContent ?? '';
    expect(text).toContain('вернётся на кошелёк владельца (id 5) на Scryde x50.');
  });
});

describe('focus after a cancel, for an operator working by keyboard', () => {
  // From the Chromium walk: «Отменить с возвратом» left with the dialog's success, focus dropped to <body>, and the next
  // Tab landed on the admin menu.
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    history.replaceState(null, '', '/');
  });

  /** Code 12, active; the cancel answers `status` and the code is read again as it then is. */
  async function open(status: 200 | 409 | 404) {
    let stored: 'active' | 'activated' | 'cancelled' | 'gone' = 'active';
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
        if (String(url).includes('id=13')) {
          const s = story('active');
          return answer(200, { ...s, code: { ...s.code, id: 13 } });
        }
        if (init?.method === 'POST') {
          stored = status === 200 ? 'cancelled' : status === 409 ? 'activated' : 'gone';
          if (status !== 200) return answer(status, { message: status === 409 ? 'Код уже активирован' : 'Код не найден' });
          return answer(200, { success: { ...story('active').code, status: 'cancelled', cancelled_at: '2026-11-01T11:00:00.000Z' }, summa: 1010 });
        }
        if (stored === 'gone') return answer(404, { message: 'Код не найден' });
        if (stored !== 'cancelled') return answer(200, story(stored));
        const s = story('active');
        return answer(200, { ...s, code: { ...s.code, status: 'cancelled', cancelled_at: '2026-11-01T11:00:00.000Z' } });
      }),
    );
    history.replaceState(null, '', '/admin/codes?id=12');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
  }
  const button = (label: string, within: ParentNode = document) => [...within.querySelectorAll('button')].find((b) => b.textContent === label);
  const dialog = () => document.querySelector('[data-testid="admin-cancel-code-dialog"]')!;
  async function cancel() {
    await act(async () => {
      const b = button('Отменить с возвратом')!;
      b.focus();
      b.click();
    });
    await settle();
    await act(async () => {
      const reason = dialog().querySelector<HTMLTextAreaElement>('textarea:not([aria-hidden])')!;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(reason, 'Игрок просил');
      reason.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => button('Отменить код', dialog())!.click());
    await settle();
    await settle();
  }
  /** Long enough for the dialog's closing transition to end and the page to drop it. */
  const dialogGone = () => act(async () => new Promise((r) => setTimeout(r, 400)));
  const focused = () => (document.activeElement === document.body ? 'body' : document.activeElement?.textContent);

  it('a cancel done moves focus to the code’s status, «Отменён», that takes the button’s place', async () => {
    await open(200);
    await cancel();
    await dialogGone();
    expect(button('Отменить с возвратом')).toBeUndefined();
    expect(focused()).toBe('Отменён');
    expect(document.activeElement?.closest('[data-testid="admin-code"]')).not.toBeNull();
  });

  it('a cancel refused because the code was activated meanwhile: after «Не отменять» focus goes to its status, «Активирован»', async () => {
    await open(409);
    await cancel();
    expect(dialog().textContent).toContain('Код уже активирован');
    await act(async () => button('Не отменять', dialog())!.click());
    await dialogGone();
    expect(button('Отменить с возвратом')).toBeUndefined();
    expect(focused()).toBe('Активирован');
  });

  it('a cancel refused because the code is gone, which takes its card away: focus goes to the page’s heading, before the search box', async () => {
    await open(404);
    await cancel();
    await dialogGone();
    expect(document.body.textContent).toContain('Такого кода нет.');
    expect(document.activeElement?.tagName).toBe('H1');
    // The dialog went with its code: it does not open by itself over the next code looked up.
    await act(async () => history.pushState(null, '', '/admin/codes?id=13'));
    await settle();
    await settle();
    expect(document.querySelector('[data-testid="admin-code"]')?.textContent).toContain('№13');
    expect(document.querySelector('[data-testid="admin-cancel-code-dialog"]')).toBeNull();
  });
  it("names the code's service accounts by its game server in its ledger entries, a wallet by its number", async () => {
    const entry = (id: number, account_key: string, amount: number) => ({
      id,
      transaction_id: 40,
      transaction_kind: 'code_issue',
      ref_type: 'code',
      ref_id: 12,
      actor_user_id: 5,
      account_id: id,
      account_key,
      gamesserver_id: 1,
      currency_type: 1,
      amount,
      balance_after: null,
      created_at: '2026-11-01T10:00:00.000Z',
    });
    const withLedger = { ...story('active'), ledger: [entry(1, 'wallet:13:1', -1010), entry(2, 'escrow:1:1', 1000), entry(3, 'fees:1:1', 10)] };
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, withLedger)));
    history.replaceState(null, '', '/admin/codes?id=12');
    ({ root } = await mountWithQuery(() => createElement(AdminCodes)));
    await settle();
    const links = [...document.querySelectorAll('a[href^="/admin/ledger/accounts/"]')].map((a) => a.textContent);
    expect(links).toEqual(['Кошелёк №13 · адена', 'Коды (депонент) · Scryde x50 · адена', 'Комиссии · Scryde x50 · адена']);
  });
});
