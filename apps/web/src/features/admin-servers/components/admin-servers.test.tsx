// @vitest-environment happy-dom
import type { AdminGamesserver } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle, type } from '../../../test/dom';
import { AdminServers } from './admin-servers';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const limit = { min: 1_000_000, max: 5_000_000_000 };
const server: AdminGamesserver = {
  id: 3,
  name: 'Scryde x50',
  cashier_nick: 'Кассир',
  limits: { input: { '1': limit, '2': limit }, output: { '1': limit, '2': limit } },
  code_fee_bp: 300,
  vip_code_fee_bp: 100,
  min_nominal: 1_000_000,
  standard_nominals: [1_000_000],
  vip_price: 100,
  vip_period_days: 30,
  active: true,
  sort_order: 0,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
};

const button = (name: string, within: ParentNode = document) => [...within.querySelectorAll('button')].find((b) => b.textContent === name)!;
const visibilityDialog = () => document.querySelector('[data-testid="server-visibility-dialog"]');
const formDialog = () => document.querySelector('[data-testid="server-form-dialog"]');
// MUI closes a dialog on a press and release on the area around it (the container, not the paper).
const clickBeside = (dialog: Element) => {
  const container = dialog.querySelector('.MuiDialog-container')!;
  container.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
  container.dispatchEvent(new MouseEvent('click', { bubbles: true }));
};

describe('the game servers screen', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  async function open() {
    localStorage.setItem('access_token', 'token');
    const updates: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === '/api/admin/gamesservers') return answer(200, [server]);
        if (url === '/api/admin/ledger/totals') {
          const row = (currency_type: 1 | 2, owed: number) => ({ gamesserver_id: server.id, gamesserver: server.name, currency_type, owed });
          return answer(200, { data: [row(1, 50_000_000), row(2, 120), { ...row(1, 7), gamesserver_id: 99 }], computed_at: '2026-11-27T10:00:00Z' });
        }
        if (url === `/api/admin/gamesservers/${server.id}` && init?.method === 'PUT') {
          updates.push(JSON.parse(String(init.body)));
          return answer(200, { success: { ...server, active: false } });
        }
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminServers))));
    await settle();
    return updates;
  }

  it('the visibility switch hides a server only after the operator confirms, naming the server and what players lose', async () => {
    const updates = await open();
    await act(async () => document.querySelector<HTMLInputElement>('input[aria-label="Scryde x50: виден игрокам"]')!.click());
    await settle();
    expect(updates).toEqual([]);
    expect(visibilityDialog()?.textContent).toContain('Скрыть сервер Scryde x50?');
    expect(visibilityDialog()?.textContent).toContain('Игроки перестанут его видеть, новые заявки и активации кодов на нём будут отклоняться.');
    // What players hold there, which they could not withdraw while it is hidden.
    expect(visibilityDialog()?.querySelector('[data-testid="server-holdings"]')?.textContent?.replace(/\u00a0/g, ' ')).toContain(
      'Игроки держат на нём 50 000 000 аден и 120 монет эйнхасад',
    );

    await act(async () => button('Отмена', visibilityDialog()!).click());
    await settle();
    expect(updates).toEqual([]);

    await act(async () => document.querySelector<HTMLInputElement>('input[aria-label="Scryde x50: виден игрокам"]')!.click());
    await act(async () => button('Скрыть', visibilityDialog()!).click());
    await settle();
    expect(updates).toEqual([{ active: false }]);
  });

  it('a changed server form stays open on a click beside it', async () => {
    await open();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const name = () => [...formDialog()!.querySelectorAll('input')].find((i) => i.value.startsWith('Scryde'))!;
    await act(async () => type(name(), 'Scryde x100'));
    await act(async () => clickBeside(formDialog()!));
    await settle();
    expect(formDialog()).not.toBeNull();
    expect(name().value).toBe('Scryde x100');
  });

  it('an edit sends only what the operator changed: a server hidden meanwhile by another operator stays hidden', async () => {
    const updates = await open();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Изменить Scryde x50"]')!.click());
    const cashier = () => [...formDialog()!.querySelectorAll('input')].find((i) => i.value === 'Кассир')!;
    await act(async () => type(cashier(), 'НовыйКассир'));
    await act(async () => button('Сохранить', formDialog()!).click());
    await settle();
    expect(updates).toEqual([{ cashier_nick: 'НовыйКассир' }]);
  });
});
