// @vitest-environment happy-dom
import type { StatementEntry } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { StatementView } from './statement-view';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const entry = (id: number, amount: number, currency_type: 1 | 2, balance_after: number): StatementEntry => ({
  id,
  at: '2026-11-01T12:00:00Z',
  kind: amount > 0 ? 'deposit' : 'withdrawal',
  currency_type,
  amount,
  balance_after,
  gamesserver_id: 1,
  description: `Заявка №${id}`,
});

describe('the statement', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('names each amount’s currency in the form that agrees with it: +301 монета эйнхасад, +2 монеты, −5 аден, +21 адена', async () => {
    const entries = [entry(1, 301, 2, 301), entry(2, 2, 2, 303), entry(3, -5, 1, 995), entry(4, 21, 1, 1016), entry(5, 1_000_000, 1, 1_001_016)];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/statement')) return answer(200, { data: entries, total: entries.length });
        if (url.startsWith('/api/gamesservers')) return answer(200, []);
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(StatementView, { initialServerId: null }))));
    await settle();

    const rows = [...document.querySelectorAll('[data-testid="statement-entry"]')];
    expect(rows).toHaveLength(5);
    const shown = rows.map((r) => {
      const amount = r.querySelector('[data-testid="statement-amount"]')!;
      return `${amount.textContent} ${amount.nextElementSibling?.textContent}`.replace(/\u00a0/g, ' ');
    });
    expect(shown).toEqual(['+301 монета эйнхасад', '+2 монеты эйнхасад', '−5 аден', '+21 адена', '+1 000 000 аден']);
  });

  it('keeps a gift code in a line on one line (it does not break at its dashes)', async () => {
    const entries = [{ ...entry(1, -5, 1, 995), kind: 'code_purchase' as const, description: 'Покупка кода ADN-7KQ2-****-****-H3RC' }];
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (url.startsWith('/api/statement') ? answer(200, { data: entries, total: 1 }) : answer(200, []))),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(StatementView, { initialServerId: null }))));
    await settle();

    const code = [...document.querySelectorAll('[data-testid="statement-entry"] span')].find((s) => s.textContent === 'ADN-7KQ2-****-****-H3RC');
    expect(code).toBeDefined();
    expect(getComputedStyle(code!).whiteSpace).toBe('nowrap');
    expect(code!.parentElement!.textContent).toBe('Покупка кода ADN-7KQ2-****-****-H3RC');
  });
});
