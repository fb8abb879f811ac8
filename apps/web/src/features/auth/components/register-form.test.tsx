// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, type } from '../../../test/dom';
import { RegisterForm } from './register-form';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the sign-up form', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('says «Пароли не совпадают» under the repeat as soon as both are typed and differ, before any submit, and drops it once they match', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RegisterForm, { method: 'email' }))));
    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    const repeatField = () => repeat!.closest('.MuiFormControl-root')!;

    await act(async () => type(password!, 'correct horse'));
    expect(repeatField().textContent).not.toContain('Пароли не совпадают');
    await act(async () => type(repeat!, 'correct hor'));
    expect(repeatField().textContent).toContain('Пароли не совпадают');
    expect(repeat!.getAttribute('aria-invalid')).toBe('true');

    await act(async () => type(repeat!, 'correct horse'));
    expect(repeatField().textContent).not.toContain('Пароли не совпадают');
    expect(repeat!.getAttribute('aria-invalid')).toBe('false');
    expect(fetch).not.toHaveBeenCalled();
  });
});
