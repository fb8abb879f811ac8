// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Gamesserver } from '@adena/contract/lite';
import { AppDialog } from '../components/app-dialog';
import { ActivationForm } from '../features/codes/components/activation-form';
import { NickForm } from '../features/wallet/components/nick-form';
import type { TelegramEnv } from '../lib/telegram';
import { useUi } from '../lib/ui-store';
import { settle, type } from '../test/dom';
import { TelegramBridge, TelegramProvider } from './telegram';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A Telegram launch without the SDK that records what the app asks of Telegram's header.
const tg = vi.hoisted(() => ({ backVisible: null as boolean | null, confirmClose: null as boolean | null, onBack: new Set<() => void>() }));
vi.mock('../lib/telegram', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/telegram')>();
  const env: TelegramEnv = {
    initDataRaw: null,
    theme: { isDark: false },
    onBack: (cb) => {
      tg.onBack.add(cb);
      return () => void tg.onBack.delete(cb);
    },
    setBackVisible: (v) => {
      tg.backVisible = v;
    },
    setClosingConfirmation: (on) => {
      tg.confirmClose = on;
    },
    onThemeChange: () => () => {},
    downloadFile: () => false,
    openTelegramLink: () => false,
  };
  return { ...actual, isTelegramLaunch: () => true, loadTelegram: async () => env };
});

/** A withdrawal form in the store's 'take' dialog: its own close keeps what was typed and says so. */
const ownCloses: string[] = [];
function TakeForm() {
  const open = useUi((s) => s.dialog.name === 'take');
  const close = useUi((s) => s.closeDialog);
  const [typed] = useState('1.5кк');
  return createElement(AppDialog, {
    open,
    onClose: () => {
      ownCloses.push(`take, kept ${typed}`);
      close();
    },
    title: 'Вывести адену',
  });
}

/** A dialog of the page's own state (like the second-factor prompt), opened over the store's. */
let openPrompt: (open: boolean) => void = () => {};
function Prompt() {
  const [open, setOpen] = useState(false);
  openPrompt = setOpen;
  return createElement(AppDialog, {
    open,
    onClose: () => {
      ownCloses.push('prompt');
      setOpen(false);
    },
    title: 'Подтвердите действие',
  });
}

const pressBack = () =>
  act(async () => {
    for (const cb of tg.onBack) cb();
  });

describe('inside Telegram, the back button closes an open dialog instead of the mini app', () => {
  let root: Root | null = null;
  let back: ReturnType<typeof vi.spyOn> | null = null;

  beforeEach(() => {
    localStorage.clear();
    sessionStorage.clear();
    ownCloses.length = 0;
    tg.backVisible = null;
    tg.confirmClose = null;
    vi.stubGlobal('fetch', vi.fn(async () => new Response('{"message":"Нужно войти"}', { status: 401 })));
  });
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    back?.mockRestore();
    back = null;
    vi.unstubAllGlobals();
    useUi.getState().closeDialog();
    document.body.innerHTML = '';
  });

  /** Opens the mini app at `path`, `idx` entries into its own history. */
  async function launch(path: string, idx: number) {
    window.history.replaceState({ idx }, '', path);
    back = vi.spyOn(window.history, 'back').mockImplementation(() => {});
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const tree = createElement(TelegramProvider, null, createElement(TelegramBridge), createElement(TakeForm), createElement(Prompt));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, tree)));
    await settle();
  }

  it('on the wallet page a full-screen withdrawal shows «Назад», which closes the form through its own close and stays on the page', async () => {
    await launch('/', 0);
    expect(tg.backVisible).toBe(false);
    expect(tg.confirmClose).toBe(false);

    await act(async () => useUi.getState().openDialog({ name: 'take', currency: 1 }));
    expect(tg.backVisible).toBe(true);
    expect(tg.confirmClose).toBe(true);

    await pressBack();
    expect(ownCloses).toEqual(['take, kept 1.5кк']);
    expect(useUi.getState().dialog.name).toBe('none');
    expect(window.location.pathname).toBe('/');
    expect(back).not.toHaveBeenCalled();
    // No dialog on the root: Telegram's own «Закрыть» again, without asking.
    expect(tg.backVisible).toBe(false);
    expect(tg.confirmClose).toBe(false);
  });

  it('off the root it closes the top dialog first, then the one below, and only then goes back a page', async () => {
    await launch('/history', 1);
    expect(tg.backVisible).toBe(true);
    await act(async () => useUi.getState().openDialog({ name: 'take', currency: 2 }));
    await act(async () => openPrompt(true));

    await pressBack();
    expect(ownCloses).toEqual(['prompt']);
    expect(useUi.getState().dialog.name).toBe('take');
    await pressBack();
    expect(ownCloses).toEqual(['prompt', 'take, kept 1.5кк']);
    expect(useUi.getState().dialog.name).toBe('none');
    expect(window.location.pathname).toBe('/history');
    expect(back).not.toHaveBeenCalled();

    await pressBack();
    expect(back).toHaveBeenCalledTimes(1);
  });

  it('a store dialog whose code has not arrived yet is closed by the back button rather than the mini app', async () => {
    await launch('/', 0);
    await act(async () => useUi.getState().openDialog({ name: 'vip' }));
    expect(tg.backVisible).toBe(true);
    await pressBack();
    expect(useUi.getState().dialog.name).toBe('none');
    expect(ownCloses).toEqual([]);
    expect(back).not.toHaveBeenCalled();
    expect(tg.backVisible).toBe(false);
  });
});

describe('inside Telegram, typed text outside a dialog is asked about before the mini app closes', () => {
  let root: Root | null = null;
  const server = { id: 1, name: 'Scryde x50' } as unknown as Gamesserver;
  beforeEach(() => {
    tg.confirmClose = null;
    vi.stubGlobal('fetch', vi.fn(async () => new Response('{"message":"Нужно войти"}', { status: 401 })));
  });
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('a gift code typed into «Код» and a nick being changed turn Telegram’s closing confirmation on until they are emptied or put back', async () => {
    window.history.replaceState({ idx: 0 }, '', '/');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const tree = createElement(
      TelegramProvider,
      null,
      createElement(TelegramBridge),
      createElement(ActivationForm, { serverName: () => undefined }),
      createElement(NickForm, { server, nick: 'Гном', onSaved: () => {}, onCancel: () => {} }),
    );
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, tree)));
    await settle();
    expect(tg.confirmClose).toBe(false);
    const code = document.querySelector<HTMLInputElement>('[data-testid="activation-input"]')!;
    const nick = document.querySelector<HTMLInputElement>('input[autocomplete="nickname"]')!;

    await act(async () => type(code, 'ADN-AAAA'));
    expect(tg.confirmClose).toBe(true);
    await act(async () => type(code, ''));
    expect(tg.confirmClose).toBe(false);

    await act(async () => type(nick, 'Гном2'));
    expect(tg.confirmClose).toBe(true);
    await act(async () => type(code, 'ADN-BBBB'));
    // Both hold text: emptying one still leaves the other to lose.
    await act(async () => type(code, ''));
    expect(tg.confirmClose).toBe(true);
    await act(async () => type(nick, 'Гном'));
    expect(tg.confirmClose).toBe(false);
  });
});
