// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, mountWithQuery, playerUser, settle, type } from '../../../test/dom';
import { ActivationForm } from './activation-form';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const serverName = (id: number) => (id === 1 ? 'Scryde x50' : 'Asterios x5');

describe('activating a code', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ snackbar: { ...useUi.getState().snackbar, open: false, text: '' } });
  });

  it('answered after the player switched server (the form remounted), the success and a refusal are still said, in a notice', async () => {
    const pending: Array<(r: Response) => void> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/user') return answer(200, playerUser(false));
        if (url === '/api/activation_code/') return new Promise<Response>((resolve) => pending.push(resolve));
        throw new Error(`unexpected ${url}`);
      }),
    );
    // As on the codes tab: the form is keyed by the server chosen.
    let server = 1;
    const mounted = await mountWithQuery(() => createElement(ActivationForm, { key: server, serverName }));
    root = mounted.root;
    await settle();
    const send = async (text: string) => {
      await act(async () => type(document.querySelector('[data-testid="activation-input"]') as HTMLInputElement, text));
      await act(async () => document.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    };

    await send('ADN-AAAA-BBBB-CCCC-DDDD');
    server = 2;
    await mounted.render();
    await act(async () => pending[0]!(answer(200, { success: { code_id: 44, nominal: 1_000_000, gamesserver_id: 1, status: 'activated' } })));
    await settle();
    expect(useUi.getState().snackbar.text.replace(/\u00a0/g, ' ')).toBe('Код активирован: +1 000 000 аден на Scryde x50');

    await send('ADN-EEEE-FFFF-GGGG-HHHH');
    server = 1;
    await mounted.render();
    await act(async () => pending[1]!(answer(422, { message: 'Код не найден', errors: { sert: ['Код не найден или уже активирован'] } })));
    await settle();
    expect(useUi.getState().snackbar).toMatchObject({ status: 'error', text: 'Код не активирован: код не найден или уже активирован' });
  });
});
