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
