// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, mountWithQuery, settle, type } from '../../../test/dom';
import { PasskeysSection } from './passkeys-section';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('removing a passkey', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
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
    const remove = document.querySelector<HTMLButtonElement>('[aria-label="Удалить ключ «Ноутбук»"]')!;
    await act(async () => remove.click());
    await settle();
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
});
