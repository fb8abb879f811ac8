// @vitest-environment happy-dom
import type { AdminUser } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useStepUp } from '../../../lib/step-up';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, settle } from '../../../test/dom';
import { UserDetails } from './user-details';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const user: AdminUser = {
  id: 42,
  name: 'Нарушитель',
  email: 'cheater@example.com',
  phone: null,
  admin: false,
  vip: false,
  vip_until: null,
  telegram_linked: false,
  two_factor: false,
  has_password: true,
  created_at: '2025-01-01T00:00:00Z',
  blocked_at: '2025-02-01T00:00:00Z',
  telegram_id: null,
  discord_id: null,
};

const button = (name: string, within: ParentNode = document) => [...within.querySelectorAll('button')].find((b) => b.textContent === name)!;
const unblockDialog = () => document.querySelector('[data-testid="unblock-dialog"]');

describe('a blocked user’s card', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('«Разблокировать» unblocks only after the operator confirms, naming the user', async () => {
    localStorage.setItem('access_token', 'token');
    const unblocks: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === `/api/admin/users/${user.id}/unblock` && init?.method === 'POST') {
          unblocks.push(url);
          return answer(200, { success: { ...user, blocked_at: null } });
        }
        if (url === `/api/admin/users/${user.id}`) return answer(200, { user, wallets: [], requests: [], codes: [], ledger: [] });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: user.id, currentUserId: 1 }))));
    await settle();

    await act(async () => button('Разблокировать').click());
    await settle();
    expect(unblocks).toEqual([]);
    expect(unblockDialog()?.textContent).toContain('Разблокировать пользователя «Нарушитель»?');
    expect(unblockDialog()?.textContent).toContain('Он снова сможет войти');

    await act(async () => button('Разблокировать', unblockDialog()!).click());
    await settle();
    expect(unblocks).toEqual([`/api/admin/users/${user.id}/unblock`]);
  });
});

describe('a user’s card at 390 px', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('breaks a long e-mail in the line under the name rather than running off the screen', async () => {
    localStorage.setItem('access_token', 'token');
    const long = { ...user, email: `${'a'.repeat(60)}@example.com` };
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === `/api/admin/users/${user.id}`) return answer(200, { user: long, wallets: [], requests: [], codes: [], ledger: [] });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: user.id, currentUserId: 1 }))));
    await settle();
    const subtitle = document.querySelector<HTMLElement>('[data-testid="user-subtitle"]')!;
    expect(subtitle.textContent).toContain(long.email);
    expect(getComputedStyle(subtitle).overflowWrap).toBe('anywhere');
  });
});

describe('a blocked operator’s card', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' } });
    useStepUp.setState({ prompt: null });
  });

  it('«Разблокировать» asks for the operator’s own code, naming the operator, and sends it with the unblock', async () => {
    localStorage.setItem('access_token', 'token');
    const operator: AdminUser = { ...user, admin: true, two_factor: true };
    const codes: (string | null)[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === `/api/admin/users/${user.id}/unblock` && init?.method === 'POST') {
          const code = new Headers(init.headers).get('X-Two-Factor-Code');
          codes.push(code);
          return code === '123456'
            ? answer(200, { success: { ...operator, blocked_at: null } })
            : answer(403, { message: 'Подтвердите действие кодом из приложения-аутентификатора', two_factor_required: true });
        }
        if (url === `/api/admin/users/${user.id}`) return answer(200, { user: operator, wallets: [], requests: [], codes: [], ledger: [] });
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: user.id, currentUserId: 1 }))));
    await settle();

    await act(async () => button('Разблокировать').click());
    await settle();
    expect(unblockDialog()?.textContent).toContain('Разблокировать администратора «Нарушитель»?');
    expect(unblockDialog()?.textContent).toContain('Подтвердите своим кодом.');
    await act(async () => button('Разблокировать', unblockDialog()!).click());
    await settle();
    // The server asked for the code: the shared prompt says what it confirms.
    expect(useStepUp.getState().prompt?.about).toBe('Разблокировать администратора «Нарушитель» (id 42)');
    await act(async () => useStepUp.getState().answer('123456'));
    await settle();
    expect(codes).toEqual([null, '123456']);
    expect(useUi.getState().snackbar.text).toBe('Пользователь «Нарушитель» разблокирован');
  });
});

describe('an action whose answer comes after the operator left the card', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' } });
    useStepUp.setState({ prompt: null });
  });

  const active = (id: number, name: string): AdminUser => ({ ...user, id, name, blocked_at: null, two_factor: true });
  const dialog = (testId: string) => document.querySelector(`[data-testid="${testId}"]`);
  const field = (within: ParentNode) => within.querySelector('textarea:not([readonly])') as HTMLTextAreaElement;
  const typeText = (input: HTMLTextAreaElement, text: string) =>
    act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(input, text);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });

  /** Card 42, then (on `show(43)`) card 43, keyed by id as the admin route renders it; `held` answers the action. */
  async function cards(onAction: (url: string, body: unknown) => Promise<Response>) {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        const one = /^\/api\/admin\/users\/(\d+)$/.exec(url);
        if (one) {
          const id = Number(one[1]);
          return answer(200, { user: active(id, id === 42 ? 'Ася' : 'Борис'), wallets: [], requests: [], codes: [], ledger: [] });
        }
        if (init?.method === 'POST') return onAction(url, JSON.parse(String(init.body)));
        throw new Error(`unexpected ${url}`);
      }),
    );
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    const show = async (id: number) => {
      await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { key: id, id, currentUserId: 1 }))));
      await settle();
    };
    await show(42);
    return show;
  }

  it('a refused block is said in an alert that names the player, over the other card; a late success names them too', async () => {
    let release: (r: Response) => void = () => {};
    const show = await cards(() => new Promise((r) => (release = r)));
    await act(async () => button('Заблокировать').click());
    await typeText(field(dialog('block-dialog')!), 'мошенничество');
    await act(async () => button('Заблокировать', dialog('block-dialog')!).click());
    await show(43);
    // Meanwhile the operator lost their rights: the refusal must not vanish with the card.
    await act(async () => release(answer(403, { message: 'Только для администраторов' })));
    await settle();
    const shown = useUi.getState().dialog;
    expect(shown).toMatchObject({ name: 'alert', text: 'Пользователь «Ася» не заблокирован', errors: ['Только для администраторов'] });
    expect(document.querySelector('h1')?.textContent).toBe('Борис');

    useUi.setState({ dialog: { name: 'none' } });
    await show(42);
    await act(async () => button('Заблокировать').click());
    await typeText(field(dialog('block-dialog')!), 'мошенничество');
    await act(async () => button('Заблокировать', dialog('block-dialog')!).click());
    await show(43);
    await act(async () => release(answer(200, { success: { ...active(42, 'Ася'), blocked_at: '2026-11-27T00:00:00Z' } })));
    await settle();
    expect(useUi.getState().snackbar.text).toBe('Пользователь «Ася» заблокирован, его сеансы завершены');
  });

  it('Escape keeps «Аккаунт угнан» ticked with the typed reason; «Отмена» clears both', async () => {
    const blocks: unknown[] = [];
    await cards(async (_url, body) => {
      blocks.push(body);
      return answer(200, { success: active(42, 'Ася') });
    });
    const tick = () => dialog('block-dialog')!.querySelector('input[type="checkbox"]') as HTMLInputElement;
    await act(async () => button('Заблокировать').click());
    await typeText(field(dialog('block-dialog')!), 'угнали аккаунт');
    await act(async () => tick().click());
    expect(tick().checked).toBe(true);
    await act(async () => dialog('block-dialog')!.querySelector('[role="dialog"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
    await settle();
    await act(async () => button('Заблокировать').click());
    expect(field(dialog('block-dialog')!).value).toBe('угнали аккаунт');
    expect(tick().checked).toBe(true);
    await act(async () => button('Отмена', dialog('block-dialog')!).click());
    await settle();
    await act(async () => button('Заблокировать').click());
    expect(field(dialog('block-dialog')!).value).toBe('');
    expect(tick().checked).toBe(false);
    await typeText(field(dialog('block-dialog')!), 'угнали аккаунт');
    await act(async () => tick().click());
    await act(async () => button('Заблокировать', dialog('block-dialog')!).click());
    await settle();
    expect(blocks).toEqual([{ reason: 'угнали аккаунт', revoke_keys: true }]);
  });

  it('the operator\'s code asked for turning off one player\'s TOTP names that player and is withdrawn when the operator opens another card', async () => {
    const calls: string[] = [];
    const show = await cards(async (url) => {
      calls.push(url);
      return answer(403, { message: 'Подтвердите действие кодом из приложения', two_factor_required: true });
    });
    await act(async () => button('Отключить вход с кодом').click());
    await typeText(field(dialog('two-factor-off-dialog')!), 'владелец подтвердил по видео');
    await act(async () => button('Отключить', dialog('two-factor-off-dialog')!).click());
    await settle();
    expect(useStepUp.getState().prompt?.about).toBe('Отключить вход с кодом для «Ася» (id 42)');
    await show(43);
    expect(useStepUp.getState().prompt).toBeNull();
    expect(calls).toEqual(['/api/admin/users/42/two_factor_off']);
    expect(useUi.getState().dialog).toMatchObject({ name: 'alert', text: 'Вход с кодом для «Ася» не отключён' });
  });
});

describe('a card whose re-read fails', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('keeps the card, the open block dialog and the typed reason, with a warning and «Повторить» above', async () => {
    localStorage.setItem('access_token', 'token');
    const active: AdminUser = { ...user, blocked_at: null };
    let down = false;
    const blocks: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === `/api/admin/users/${user.id}/block` && init?.method === 'POST') {
          blocks.push(JSON.parse(String(init.body)));
          return answer(200, { success: { ...active, blocked_at: '2026-11-27T00:00:00Z' } });
        }
        if (url === `/api/admin/users/${user.id}`) {
          return down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, { user: active, wallets: [], requests: [], codes: [], ledger: [] });
        }
        throw new Error(`unexpected ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: user.id, currentUserId: 1 }))));
    await settle();
    const dialog = () => document.querySelector('[data-testid="block-dialog"]');
    const field = () => dialog()!.querySelector('textarea:not([readonly])') as HTMLTextAreaElement;
    const stale = () => document.querySelector('[data-testid="user-stale"]');

    await act(async () => button('Заблокировать').click());
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(field(), 'мошенничество');
      field().dispatchEvent(new Event('input', { bubbles: true }));
    });
    // Another tab's action (or a refocus) reads the card again while the server is away a moment.
    down = true;
    await act(async () => qc.invalidateQueries({ queryKey: ['admin', 'users'] }));
    await settle();
    expect(stale()?.textContent).toContain('Не удалось обновить данные');
    expect(stale()?.textContent).toContain('Сервис временно недоступен');
    expect(document.querySelector('h1')?.textContent).toBe('Нарушитель');
    expect(field().value).toBe('мошенничество');

    // «Повторить» reads it again; the warning goes, the dialog and its reason stay, and the block goes through.
    down = false;
    await act(async () => button('Повторить', stale()!).click());
    await settle();
    expect(stale()).toBeNull();
    expect(field().value).toBe('мошенничество');
    await act(async () => button('Заблокировать', dialog()!).click());
    await settle();
    expect(blocks).toEqual([{ reason: 'мошенничество' }]);
  });
});

describe('focus after an action that swaps or removes the card’s button, for an operator working by keyboard', () => {
  // From the Chromium walk: «Заблокировать» became «Разблокировать» under the dialog, MUI gave focus back to the removed
  // button, and the next Tab started from the admin menu.
  let root: Root | null = null;
  let dropping: MutationObserver | null = null;
  afterEach(async () => {
    dropping?.disconnect();
    dropping = null;
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' } });
    useStepUp.setState({ prompt: null });
  });

  /** A card the server changes as asked; a focused button that becomes disabled loses focus to <body>, as in Chromium. */
  async function card(start: AdminUser) {
    let shown = start;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === 'POST') {
          if (url.endsWith('/block')) shown = { ...shown, blocked_at: '2026-11-28T00:00:00Z' };
          else if (url.endsWith('/unblock')) shown = { ...shown, blocked_at: null };
          else if (url.endsWith('/two_factor_off')) shown = { ...shown, two_factor: false };
          else throw new Error(`unexpected ${url}`);
          return answer(200, { success: shown });
        }
        if (url === `/api/admin/users/${start.id}`) return answer(200, { user: shown, wallets: [], requests: [], codes: [], ledger: [] });
        throw new Error(`unexpected ${url}`);
      }),
    );
    dropping = new MutationObserver(() => {
      if ((document.activeElement as HTMLButtonElement | null)?.disabled) document.body.focus();
    });
    dropping.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['disabled'] });
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: start.id, currentUserId: 1 }))));
    await settle();
  }
  const press = async (b: HTMLButtonElement | undefined) => {
    expect(b).toBeDefined();
    await act(async () => {
      b!.focus();
      b!.click();
    });
    await settle();
  };
  const typeReason = (testId: string, text: string) =>
    act(async () => {
      const input = document.querySelector(`[data-testid="${testId}"] textarea:not([readonly])`) as HTMLTextAreaElement;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(input, text);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  /** Long enough for a dialog's closing transition to end and the page to drop it. */
  const dialogGone = () => act(async () => new Promise((r) => setTimeout(r, 400)));
  const inDialog = (testId: string) => document.querySelector(`[data-testid="${testId}"]`)!;
  const focused = () => (document.activeElement === document.body ? 'body' : document.activeElement?.textContent);

  it('a block moves focus to «Разблокировать», and the unblock after it back to «Заблокировать»', async () => {
    await card({ ...user, blocked_at: null });
    await press(button('Заблокировать'));
    await typeReason('block-dialog', 'мошенничество');
    await press(button('Заблокировать', inDialog('block-dialog')));
    await settle();
    await dialogGone();
    expect(button('Заблокировать')).toBeUndefined();
    expect(focused()).toBe('Разблокировать');

    await press(button('Разблокировать'));
    await press(button('Разблокировать', inDialog('unblock-dialog')));
    await settle();
    await dialogGone();
    expect(button('Разблокировать')).toBeUndefined();
    expect(focused()).toBe('Заблокировать');
  });

  it('the TOTP rescue, whose button leaves with nothing in its place, moves focus to the next button along', async () => {
    await card({ ...user, blocked_at: null, two_factor: true });
    await press(button('Отключить вход с кодом'));
    await typeReason('two-factor-off-dialog', 'владелец подтвердил по видео');
    await press(button('Отключить', inDialog('two-factor-off-dialog')));
    await settle();
    await dialogGone();
    expect(button('Отключить вход с кодом')).toBeUndefined();
    expect(focused()).toBe('Заблокировать');
  });
});

describe('a step-up prompt the operator cancels', () => {
  // From the Chromium walk: «Отмена» in «Подтвердите действие» opened a red alert «Пользователь «Борис» не
  // разблокирован — Подтвердите действие кодом…» (and «…не стал администратором»), and the TOTP rescue's dialog
  // showed the server's «Подтвердите действие кодом» in red. The player's side says nothing for a cancelled prompt.
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useUi.setState({ dialog: { name: 'none' } });
    useStepUp.setState({ prompt: null });
  });

  const STEP_UP = 'Подтвердите действие кодом из приложения-аутентификатора';
  async function card(start: AdminUser) {
    const calls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === 'POST' || init?.method === 'PUT' || init?.method === 'PATCH') {
          calls.push(url);
          return answer(403, { message: STEP_UP, two_factor_required: true });
        }
        if (url === `/api/admin/users/${start.id}`) return answer(200, { user: start, wallets: [], requests: [], codes: [], ledger: [] });
        throw new Error(`unexpected ${url}`);
      }),
    );
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(UserDetails, { id: start.id, currentUserId: 1 }))));
    await settle();
    return calls;
  }
  const cancelPrompt = async () => {
    expect(useStepUp.getState().prompt).not.toBeNull();
    await act(async () => useStepUp.getState().answer(null));
    await settle();
  };
  const dialog = (testId: string) => document.querySelector(`[data-testid="${testId}"]`);

  it('«Разблокировать» → «Отмена»: no red alert, the unblock dialog stays for another try', async () => {
    const calls = await card({ ...user, admin: true, two_factor: true });
    await act(async () => button('Разблокировать').click());
    await act(async () => button('Разблокировать', dialog('unblock-dialog')!).click());
    await settle();
    await cancelPrompt();
    expect(calls).toEqual([`/api/admin/users/${user.id}/unblock`]);
    expect(useUi.getState().dialog).toEqual({ name: 'none' });
    expect(dialog('unblock-dialog')?.textContent).toContain('Разблокировать администратора «Нарушитель»?');
  });

  it('«Сделать админом» → «Отмена»: no red alert', async () => {
    await card({ ...user, blocked_at: null });
    await act(async () => button('Сделать админом').click());
    await settle();
    await act(async () => button('Сделать').click());
    await settle();
    await cancelPrompt();
    expect(useUi.getState().dialog).toEqual({ name: 'none' });
    expect(document.querySelector('[role="dialog"]')?.textContent).toContain('Сделать администратором?');
  });

  it('«Отключить вход с кодом» → «Отмена»: no red error in the dialog, which keeps the typed reason', async () => {
    await card({ ...user, blocked_at: null, two_factor: true });
    await act(async () => button('Отключить вход с кодом').click());
    const field = () => dialog('two-factor-off-dialog')!.querySelector('textarea:not([readonly])') as HTMLTextAreaElement;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(field(), 'владелец подтвердил по видео');
      field().dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => button('Отключить', dialog('two-factor-off-dialog')!).click());
    await settle();
    await cancelPrompt();
    expect(useUi.getState().dialog).toEqual({ name: 'none' });
    expect(dialog('two-factor-off-dialog')?.textContent).not.toContain(STEP_UP);
    expect(dialog('two-factor-off-dialog')?.querySelector('.MuiAlert-root, .Mui-error')).toBeNull();
    expect(field().value).toBe('владелец подтвердил по видео');
    expect(button('Отключить', dialog('two-factor-off-dialog')!).disabled).toBe(false);
  });
});
