// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
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
