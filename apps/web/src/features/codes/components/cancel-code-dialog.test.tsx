// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, settle } from '../../../test/dom';
import { CancelCodeDialog } from './my-codes-list';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('cancelling a code after a lost answer', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('sends the same key again, so the retry learns the refund instead of «Код уже отменён»', async () => {
    localStorage.setItem('access_token', 'token');
    const keys: string[] = [];
    let lost = true;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        keys.push(new Headers(init.headers).get('Idempotency-Key') ?? '');
        if (lost) throw new TypeError('Failed to fetch');
        return answer(200, { success: 41, summa: 1_020_000 });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(CancelCodeDialog))));
    await act(async () => useUi.getState().openDialog({ name: 'cancel_code', gameServerId: 1, codeId: 41, nominal: 1_000_000, sert: 'ADN-TEST-CODE' }));
    const cancel = () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Отменить код')!;
    await act(async () => cancel().click());
    await settle();
    // The failure is said in an alert in the dialog's place; the player opens the cancel again from the list.
    expect(useUi.getState().dialog.name).toBe('alert');
    await act(async () => useUi.getState().openDialog({ name: 'cancel_code', gameServerId: 1, codeId: 41, nominal: 1_000_000, sert: 'ADN-TEST-CODE' }));
    lost = false;
    await act(async () => cancel().click());
    await settle();
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe('');
    expect(keys[1]).toBe(keys[0]);
    expect(useUi.getState().dialog.name).toBe('none');
    await act(async () => root.unmount());
  });
});
