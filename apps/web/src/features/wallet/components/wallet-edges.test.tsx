// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, mountWithQuery, settle, type } from '../../../test/dom';
import { NickForm } from './nick-form';
import { WalletCard } from './wallet-card';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const limit = { min: 1_000_000, max: 5_000_000_000 };
const server = {
  id: 1,
  name: 'Scryde x50',
  cashier_nick: 'Кассир',
  limits: { input: { '1': limit, '2': limit }, output: { '1': limit, '2': limit } },
} as unknown as Gamesserver;

describe('the wallet card’s edges', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' }, queued: null });
  });

  it('a nick refused on another field (the server switched off) says why under the nick', async () => {
    // Review finding: a 404 on gamesserver_id left the form as it was, without a word.
    vi.stubGlobal('fetch', vi.fn(async () => answer(404, { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } })));
    root = (await mountWithQuery(() => createElement(NickForm, { server, nick: null, onSaved: () => {} }))).root;
    const input = document.querySelector('input')!;
    await act(async () => type(input, 'Hero'));
    await act(async () => void document.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.body.textContent).toContain('Игровой сервер не найден');
  });

  it('«Пополнить» pressed while the signed-in player is still being read does not say «Вы не авторизованы»', async () => {
    // Review finding: on a slow network the sign-in dialog opened for a signed-in player.
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>(() => {})));
    root = (await mountWithQuery(() => createElement(WalletCard, { server }))).root;
    const put = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Пополнить')!;
    await act(async () => put.click());
    expect(useUi.getState().dialog.name).not.toBe('not_signed_in');
  });
});
