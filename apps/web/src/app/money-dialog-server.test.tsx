// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { act, createElement, type ReactElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useSelectedGameServerId } from '../features/servers/selected-server';
import { MoneyDialogs } from '../features/wallet/components/money-dialogs';
import { useUi } from '../lib/ui-store';
import { answer, cleanup, mountWithQuery, settle, type } from '../test/dom';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// The page's server choice (features/servers) and the money dialogs (features/wallet) together, as the home page composes them.
const limit = { min: 1_000_000, max: 5_000_000_000 };
const limits = { input: { '1': limit, '2': limit }, output: { '1': limit, '2': limit } };
const scryde = { id: 1, name: 'Scryde x50', cashier_nick: 'Кассир', limits } as unknown as Gamesserver;
const asterios = { id: 2, name: 'Asterios x5', cashier_nick: 'Казначей', limits } as unknown as Gamesserver;
const servers = [scryde, asterios];

/** Every withdrawal's body, each answered 200; reads find nothing. */
function network() {
  const sent: Array<{ body: { gamesserver_id: number; amount: number } }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit) => {
      if (init.method !== 'POST') return answer(404, { message: 'Не найдено' });
      sent.push({ body: JSON.parse(String(init.body)) });
      return answer(200, { success: { id: 3, enter_currency: 1_500_000 } });
    }),
  );
  return { sent };
}

const inTake = (selector: string) => document.querySelector<HTMLElement>(`[data-testid="take-dialog"] ${selector}`);
const title = () => inTake('h2')?.textContent;
const submitTake = async () => {
  await act(async () => void document.getElementById('take-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
};
const openTake = () => act(async () => useUi.getState().openDialog({ name: 'take', currency: 1 }));
const typeAmount = (text: string) => act(async () => type(inTake('[data-testid="amount-input"]') as HTMLInputElement, text));

describe('the page’s game server and an open money dialog', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' }, queued: null });
  });

  async function mount(element: () => ReactElement) {
    const mounted = await mountWithQuery(element);
    root = mounted.root;
    return mounted.render;
  }

  it('another tab choosing another server moves the page only once no dialog is open: an open withdrawal goes to its own server', async () => {
    const net = network();
    localStorage.setItem('gamesserver_id', '1');
    function Page({ tick }: { tick: number }) {
      const [id] = useSelectedGameServerId();
      const server = servers.find((s) => s.id === id);
      return createElement(
        'div',
        { 'data-tick': tick },
        createElement('h1', { 'data-testid': 'page-server' }, server?.name),
        createElement(MoneyDialogs, { server, nick: 'Hero', balances: { 1: 10_000_000, 2: 0 } }),
      );
    }
    let tick = 0;
    const render = await mount(() => createElement(Page, { tick }));
    const pageServer = () => document.querySelector('[data-testid="page-server"]')?.textContent;
    const otherTabChooses = (id: string) =>
      act(async () => {
        localStorage.setItem('gamesserver_id', id);
        window.dispatchEvent(new StorageEvent('storage', { key: 'gamesserver_id', newValue: id }));
      });

    // No dialog open: the page follows at once.
    await otherTabChooses('2');
    expect(pageServer()).toBe('Asterios x5');
    await otherTabChooses('1');
    expect(pageServer()).toBe('Scryde x50');

    await openTake();
    await typeAmount('1,5кк');
    await otherTabChooses('2');
    // Anything that renders the page again (a balance event, a refetch on focus) does not move it either.
    tick += 1;
    await render();
    expect(pageServer()).toBe('Scryde x50');
    expect(title()).toBe('Вывести адену — Scryde x50');
    await submitTake();
    expect(net.sent[0]!.body).toMatchObject({ gamesserver_id: 1, amount: 1_500_000 });

    // The withdrawal went through and the dialog closed: now the page follows the other tab.
    expect(useUi.getState().dialog.name).toBe('none');
    expect(pageServer()).toBe('Asterios x5');
  });
});
