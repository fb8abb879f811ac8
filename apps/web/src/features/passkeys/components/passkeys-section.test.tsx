// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useStepUp } from '../../../lib/step-up';
import { answer, cleanup, mountWithQuery, settle, type } from '../../../test/dom';
import { PasskeysSection } from './passkeys-section';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === text);
const NOTEBOOK = { id: 5, name: 'Ноутбук', created_at: '2026-11-01T10:00:00.000Z' };
const dialogButton = (text: string) =>
  [...document.querySelectorAll('[data-testid="passkey-remove-dialog"] button')].find((b) => b.textContent === text) as HTMLButtonElement | undefined;
/** The trash button, then «Удалить» in the dialog that asks first. */
async function removeNotebook() {
  await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Удалить ключ «Ноутбук»"]')!.click());
  await settle();
  await act(async () => dialogButton('Удалить')!.click());
  await settle();
}

describe('removing a passkey', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('asks first, naming the key: «Отмена» removes nothing, «Удалить» removes it', async () => {
    // Review finding: one tap on the trash icon removed the key at once, with no way back but the device.
    const deletes: string[] = [];
    let listed = [NOTEBOOK];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (String(url).endsWith('/api/passkeys') && (init.method ?? 'GET') === 'GET') return answer(200, listed);
        if (String(url).endsWith('/api/user')) return answer(200, { id: 1, name: 'Игрок', two_factor: false });
        if (init.method === 'DELETE') {
          deletes.push(String(url));
          listed = [];
          return answer(204, null);
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    root = (await mountWithQuery(() => createElement(PasskeysSection))).root;
    await settle();
    await act(async () => document.querySelector<HTMLButtonElement>('[aria-label="Удалить ключ «Ноутбук»"]')!.click());
    await settle();
    expect(document.querySelector('[data-testid="passkey-remove-dialog"]')?.textContent).toContain('Удалить ключ «Ноутбук»?');
    await act(async () => dialogButton('Отмена')!.click());
    await settle();
    expect(deletes).toEqual([]);
    expect(document.querySelector('[data-testid="passkeys-list"]')?.textContent).toContain('Ноутбук');
    await removeNotebook();
    expect(deletes).toHaveLength(1);
    expect(deletes[0]).toMatch(/\/api\/passkeys\/5$/);
    expect(document.querySelector('[data-testid="passkeys-list"]')).toBeNull();
  });

  it('says why a removal was refused instead of leaving the key listed without a word', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (String(url).endsWith('/api/passkeys') && (init.method ?? 'GET') === 'GET') return answer(200, [{ id: 5, name: 'Ноутбук', created_at: '2026-11-01T10:00:00.000Z' }]);
        if (String(url).endsWith('/api/user')) return answer(200, { id: 1, name: 'Игрок', two_factor: false });
        if (init.method === 'DELETE') return answer(429, { message: 'Слишком много попыток. Попробуйте через 15 мин' });
        return answer(404, { message: 'Не найдено' });
      }),
    );
    root = (await mountWithQuery(() => createElement(PasskeysSection))).root;
    await settle();
    await removeNotebook();
    expect(document.querySelector('[data-testid="passkey-remove-error"]')?.textContent).toBe('Слишком много попыток. Попробуйте через 15 мин');
    expect(document.querySelector('[data-testid="passkeys-list"]')?.textContent).toContain('Ноутбук');
  });

  it('a name the server would refuse is said under the field before the browser is asked to make a key', async () => {
    // Review finding: a name with a zero-width joiner passed the browser's prompt; the device kept a key the server refused.
    const calls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push(`${init.method ?? 'GET'} ${url}`);
        if (String(url).endsWith('/api/passkeys')) return answer(200, []);
        if (String(url).endsWith('/api/user')) return answer(200, { id: 1, name: 'Игрок', two_factor: true });
        return answer(404, { message: 'Не найдено' });
      }),
    );
    root = (await mountWithQuery(() => createElement(PasskeysSection))).root;
    await settle();
    const name = [...document.querySelectorAll<HTMLInputElement>('input')].find((i) => i.closest('.MuiFormControl-root')?.textContent?.includes('Название'))!;
    await act(async () => type(name, 'Ноутбук \u200d💻'));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Добавить ключ доступа')!.click());
    await settle();
    expect(calls.filter((c) => c.startsWith('POST'))).toEqual([]);
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(name.closest('.MuiFormControl-root')?.textContent).toMatch(/символ/i);
  });

  it('a key already gone (404) leaves the list: the list is read again whatever the answer', async () => {
    // Review finding: only a removal that succeeded read the list again; a key removed elsewhere stayed listed.
    let listed = [NOTEBOOK];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        if (String(url).endsWith('/api/passkeys') && (init.method ?? 'GET') === 'GET') return answer(200, listed);
        if (String(url).endsWith('/api/user')) return answer(200, { id: 1, name: 'Игрок', two_factor: false });
        if (init.method === 'DELETE') {
          listed = [];
          return answer(404, { message: 'Ключ не найден' });
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    root = (await mountWithQuery(() => createElement(PasskeysSection))).root;
    await settle();
    await removeNotebook();
    expect(document.querySelector('[data-testid="passkeys-list"]')).toBeNull();
  });
});

describe('the passkeys list', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    useStepUp.setState({ prompt: null });
  });

  it('a list that failed to load says why and reads again on «Повторить», instead of looking empty', async () => {
    // Review finding: a 503 on GET /api/passkeys showed no keys and no word.
    let down = true;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (String(url).endsWith('/api/passkeys')) return down ? answer(503, { message: 'Сервис временно недоступен' }) : answer(200, [NOTEBOOK]);
        if (String(url).endsWith('/api/user')) return answer(200, { id: 1, name: 'Игрок', two_factor: true });
        return answer(404, { message: 'Не найдено' });
      }),
    );
    localStorage.setItem('access_token', 'token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(PasskeysSection))));
    await settle();
    const failed = () => document.querySelector('[data-testid="passkeys-load-error"]');
    expect(failed()?.textContent).toContain('Сервис временно недоступен');
    down = false;
    await act(async () => button('Повторить')!.click());
    await settle();
    expect(failed()).toBeNull();
    expect(document.querySelector('[data-testid="passkeys-list"]')?.textContent).toContain('Ноутбук');
  });

  it('a step-up prompt cancelled while adding a key is no error', async () => {
    // Review finding: «Отмена» in the code prompt showed a red «Подтвердите действие кодом…».
    const asked = 'Подтвердите действие кодом из приложения';
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (String(url).endsWith('/api/passkeys')) return answer(200, []);
        if (String(url).endsWith('/api/user')) return answer(200, { id: 1, name: 'Игрок', two_factor: true });
        if (String(url).includes('/api/passkeys/register/options')) return answer(403, { message: asked, two_factor_required: true });
        return answer(404, { message: 'Не найдено' });
      }),
    );
    root = (await mountWithQuery(() => createElement(PasskeysSection))).root;
    await settle();
    await act(async () => button('Добавить ключ доступа')!.click());
    // The WebAuthn library is imported on the first tap: a loaded machine takes longer than one settle.
    for (let i = 0; i < 100 && !useStepUp.getState().prompt; i++) await settle();
    expect(useStepUp.getState().prompt?.message).toBe(asked);
    await act(async () => useStepUp.getState().answer(null));
    await settle();
    expect(document.querySelector('.MuiAlert-root')).toBeNull();
    expect(document.body.textContent).not.toContain(asked);
    expect(button('Добавить ключ доступа')?.disabled).toBe(false);
  });
});
