// @vitest-environment happy-dom
import type { Gamesserver } from '@adena/contract/lite';
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endSelfSignIn } from '../../../lib/telegram';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { WalletCard } from './wallet-card';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const launch = vi.hoisted(() => ({ inTelegram: false }));
vi.mock('../../../lib/telegram', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../lib/telegram')>();
  return { ...actual, isTelegramLaunch: () => launch.inTelegram };
});

const server = { id: 1, name: 'Scryde x50', cashier_nick: 'Кассир' } as unknown as Gamesserver;

describe('the wallet card signed out', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    endSelfSignIn(false);
  });

  /** Nobody signed in: the held token is refused (stale launch data, «Выйти», a session ended elsewhere). */
  async function mountSignedOut() {
    vi.stubGlobal('fetch', vi.fn(async () => answer(401, { message: 'Нужно войти' })));
    root = (await mountWithQuery(() => createElement(WalletCard, { server }))).root;
    await settle();
  }
  const alertText = () => document.querySelector('[data-testid="wallet-card"] [role="alert"]')?.textContent ?? null;

  it('in a browser asks to sign in', async () => {
    launch.inTelegram = false;
    await mountSignedOut();
    expect(alertText()).toBe('Войдите, чтобы увидеть баланс и пополнять кошелёк.');
  });

  it('inside the mini app says for good how to get back in (a new launch signs in), once the app’s own sign-in is over', async () => {
    launch.inTelegram = true;
    await mountSignedOut();
    // Still signing in with the launch data: the balance is on its way, not «Вы не вошли».
    expect(alertText()).toBeNull();
    expect(document.querySelector('[data-testid="balance-loading"]')).not.toBeNull();
    // Refused (stale data) or signed out with «Выйти»: the card says what to do, with no time limit.
    await act(async () => endSelfSignIn());
    expect(alertText()).toBe('Вы не вошли. Закройте и откройте приложение заново — войдём через Telegram сами.');
  });
});
