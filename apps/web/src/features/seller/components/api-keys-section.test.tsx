// @vitest-environment happy-dom
import type { User } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { userQueryOptions } from '../../../lib/session';
import { useStepUp } from '../../../lib/step-up';
import { answer, cleanup, playerUser, settle, type } from '../../../test/dom';
import { ApiKeysSection } from './api-keys-section';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const passwordField = () => document.querySelector<HTMLInputElement>('[data-testid="api-key-password"]');
const nameField = () => [...document.querySelectorAll('input')].find((i) => i.placeholder === 'Например, FunPay-бот')!;
const helperOf = (input: HTMLInputElement | null) => input?.closest('.MuiFormControl-root')?.querySelector('.MuiFormHelperText-root')?.textContent ?? null;
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === name)!;
/** The secrets on screen, each as «label: value». */
const shown = () =>
  [...document.querySelectorAll('[data-testid="shown-once"]')].map((a) => `${a.querySelector('span')?.textContent}: ${a.querySelector('[data-testid="secret-value"]')?.textContent}`);
const alerts = () => [...document.querySelectorAll('.MuiAlert-message')].map((a) => a.textContent);
const created = (id: number, name: string) => ({ id, name, key: `aw_key${id}`, created_at: '2026-11-27T10:00:00Z' });

describe('creating an API key in the profile', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useStepUp.setState({ prompt: null });
  });

  /** Renders the section for the user; each POST /api/api_keys takes the next answer, its body kept. */
  async function render(who: User, creates: Array<() => Response>) {
    localStorage.setItem('access_token', 'token');
    const sent: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (url !== '/api/api_keys') throw new Error(`unexpected ${url}`);
        if (init.method === 'GET') return answer(200, []);
        sent.push(JSON.parse(String(init.body)));
        return (creates.shift() ?? (() => answer(500, { message: 'unexpected' })))();
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, who);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ApiKeysSection))));
    await settle();
    return sent;
  }
  async function create(name: string, password?: string) {
    await act(async () => type(nameField(), name));
    if (password !== undefined) await act(async () => type(passwordField()!, password));
    await act(async () => button('Создать ключ').click());
    await settle();
  }

  it('«Ключей пока нет.» is a status, not an alert a screen reader breaks in with at every profile load (Chromium walk)', async () => {
    await render(playerUser(false), []);
    const empty = [...document.querySelectorAll('[role]')].find((el) => el.textContent === 'Ключей пока нет.');
    expect(empty?.getAttribute('role')).toBe('status');
    expect(document.querySelector('[role="alert"]')).toBeNull();
  });

  it('without TOTP asks for the current password, sends it, and says a wrong one under the field', async () => {
    const sent = await render(playerUser(false), [
      () => answer(422, { message: 'Проверьте поля', errors: { password: ['Неверный текущий пароль'] } }),
      () => answer(200, { id: 1, name: 'Магазин', key: 'aw_new-key', created_at: '2026-11-27T10:00:00Z' }),
    ]);
    expect(passwordField()).not.toBeNull();
    expect(passwordField()!.type).toBe('password');
    expect(passwordField()!.getAttribute('autocomplete')).toBe('current-password');

    await create('Магазин', 'не тот пароль');
    expect(sent).toEqual([{ name: 'Магазин', password: 'не тот пароль' }]);
    expect(helperOf(passwordField())).toBe('Неверный текущий пароль');
    expect(helperOf(nameField())).not.toContain('Неверный');
    expect(document.querySelector('[data-testid="secret-value"]')).toBeNull();

    await create('Магазин', 'верный пароль');
    expect(sent[1]).toEqual({ name: 'Магазин', password: 'верный пароль' });
    expect(document.querySelector('[data-testid="secret-value"]')?.textContent).toBe('aw_new-key');
    expect(passwordField()!.value).toBe('');
  });

  it('an account without a password leaves the field empty and sends none', async () => {
    const sent = await render(playerUser(false), [() => answer(200, { id: 2, name: 'Бот', key: 'aw_bot', created_at: '2026-11-27T10:00:00Z' })]);
    await create('Бот');
    expect(sent).toEqual([{ name: 'Бот' }]);
    expect(document.querySelector('[data-testid="secret-value"]')?.textContent).toBe('aw_bot');
  });

  it('with TOTP on shows no password field and sends none (the code is asked in the step-up prompt)', async () => {
    const sent = await render(playerUser(true), [() => answer(200, { id: 3, name: 'Бот', key: 'aw_totp', created_at: '2026-11-27T10:00:00Z' })]);
    expect(passwordField()).toBeNull();
    await create('Бот');
    expect(sent).toEqual([{ name: 'Бот' }]);
  });

  it('«Отозвать» asks first, naming the key, and says so when the key was not revoked', async () => {
    localStorage.setItem('access_token', 'token');
    const revoked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (url === '/api/api_keys' && init.method === 'GET') {
          return answer(200, [{ id: 3, name: 'FunPay-бот', prefix: 'aw_live_ab12', created_at: '2026-11-01T00:00:00Z', last_used_at: null }]);
        }
        if (url === '/api/api_keys/3' && init.method === 'DELETE') {
          revoked.push(url);
          return answer(503, { message: 'Сервис временно недоступен' });
        }
        throw new Error(`unexpected ${init.method} ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(true));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ApiKeysSection))));
    await settle();
    await act(async () => button('Отозвать').click());
    const dialog = () => document.querySelector('[data-testid="api-key-revoke-dialog"]');
    expect(dialog()?.textContent).toContain('Отозвать ключ «FunPay-бот»?');
    expect(revoked).toEqual([]);
    await act(async () => [...dialog()!.querySelectorAll('button')].find((b) => b.textContent === 'Отозвать')!.click());
    await settle();
    expect(revoked).toHaveLength(1);
    expect([...document.querySelectorAll('.MuiAlert-message')].map((a) => a.textContent)).toContain('Не удалось подтвердить, что ключ «FunPay-бот» отозван: проверьте список. Сервис временно недоступен.');
  });

  it('a second key keeps the first one\'s secret on screen; each names its key and is closed on its own', async () => {
    // Review finding: creating a second key replaced the first key's secret, shown once, lost for good.
    await render(playerUser(true), [() => answer(200, created(1, 'Магазин')), () => answer(200, created(2, 'Бот'))]);
    await create('Магазин');
    await create('Бот');
    expect(shown()).toEqual([
      'Новый ключ «Магазин» — показывается один раз, сохраните его сейчас.: aw_key1',
      'Новый ключ «Бот» — показывается один раз, сохраните его сейчас.: aw_key2',
    ]);
    await act(async () => document.querySelector<HTMLButtonElement>('[data-testid="shown-once"] .MuiAlert-action button')!.click());
    expect(shown()).toEqual(['Новый ключ «Бот» — показывается один раз, сохраните его сейчас.: aw_key2']);
  });

  it('a step-up prompt cancelled while creating a key is no error', async () => {
    // Review finding: «Отмена» in the code prompt left «Подтвердите действие кодом…» in red under the name.
    const asked = 'Подтвердите действие кодом из приложения';
    await render(playerUser(true), [() => answer(403, { message: asked, two_factor_required: true })]);
    await act(async () => type(nameField(), 'Бот'));
    await act(async () => button('Создать ключ').click());
    await settle();
    expect(useStepUp.getState().prompt?.message).toBe(asked);
    await act(async () => useStepUp.getState().answer(null));
    await settle();
    expect(helperOf(nameField())).not.toContain(asked);
    expect(nameField().getAttribute('aria-invalid')).toBe('false');
    expect(alerts()).not.toContain(asked);
  });
});

describe('the API keys list in the profile', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  /** Renders the section over a stubbed server: GET answers `list()` (or `down` while it is set), POST adds, DELETE removes. */
  async function serve(server: { keys: Array<ReturnType<typeof created>>; down?: boolean }) {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (url === '/api/api_keys' && init.method === 'GET') {
          if (server.down) return answer(503, { message: 'Сервис временно недоступен' });
          return answer(
            200,
            server.keys.map((k) => ({ id: k.id, name: k.name, prefix: k.key.slice(0, 8), created_at: k.created_at, last_used_at: null })),
          );
        }
        if (url === '/api/api_keys' && init.method === 'POST') {
          const k = created(server.keys.length + 1, (JSON.parse(String(init.body)) as { name: string }).name);
          server.keys.push(k);
          return answer(200, k);
        }
        const id = Number(url.match(/^\/api\/api_keys\/(\d+)$/)?.[1]);
        if (id && init.method === 'DELETE') {
          server.keys = server.keys.filter((k) => k.id !== id);
          return answer(200, { success: true });
        }
        throw new Error(`unexpected ${init.method} ${url}`);
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(true));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ApiKeysSection))));
    await settle();
  }
  const revokeThrough = async (name: string) => {
    await act(async () => document.querySelector<HTMLButtonElement>(`[aria-label="Отозвать ключ «${name}»"]`)!.click());
    const dialog = document.querySelector('[data-testid="api-key-revoke-dialog"]')!;
    await act(async () => [...dialog.querySelectorAll('button')].find((b) => b.textContent === 'Отозвать')!.click());
    await settle();
  };

  it('revoking the key just created takes its secret off the screen; another fresh key\'s stays', async () => {
    // Review finding: the secret of a revoked key stayed on screen as if it still opened anything.
    await serve({ keys: [] });
    for (const name of ['Магазин', 'Бот']) {
      await act(async () => type(nameField(), name));
      await act(async () => button('Создать ключ').click());
      await settle();
    }
    expect(shown()).toHaveLength(2);
    await revokeThrough('Магазин');
    expect(shown()).toEqual(['Новый ключ «Бот» — показывается один раз, сохраните его сейчас.: aw_key2']);
    expect(document.querySelector('[aria-label="API-ключи"]')?.textContent).not.toContain('Магазин');
  });

  it('a list that failed to load says why and reads again on «Повторить», instead of «Ключей пока нет»', async () => {
    // Review finding: a 503 on GET /api/api_keys showed nothing, as if the seller had no keys.
    const server = { keys: [created(1, 'FunPay-бот')], down: true };
    await serve(server);
    expect(document.querySelector('[data-testid="api-keys-load-error"]')?.textContent).toContain('Сервис временно недоступен');
    expect(document.querySelector('[aria-label="API-ключи"]')).toBeNull();
    server.down = false;
    await act(async () => button('Повторить').click());
    await settle();
    expect(document.querySelector('[data-testid="api-keys-load-error"]')).toBeNull();
    expect(document.querySelector('[aria-label="Отозвать ключ «FunPay-бот»"]')).not.toBeNull();
  });
});
