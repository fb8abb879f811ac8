// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, settle, type } from '../../../test/dom';
import { ResetForm } from './reset-form';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the password reset form', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  const mount = async () => {
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(ResetForm, { method: 'email' }))));
  };
  const reload = async () => {
    await act(async () => root!.unmount());
    document.body.innerHTML = '';
    await mount();
  };
  const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith(text));
  const codeField = () => document.querySelector<HTMLInputElement>('input[autocomplete="one-time-code"]');

  it('keeps the code step across a reload, and forgets it once the code is accepted', async () => {
    const sent: [string, Record<string, unknown>][] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        const body = JSON.parse(String(init?.body ?? '{}'));
        sent.push([url, body]);
        if (url.includes('code_check')) return Response.json({ new_password_token: 'np-1' });
        return Response.json({ email_reset_password_token: 'reset-1' });
      }),
    );
    await mount();
    await act(async () => type(document.querySelector<HTMLInputElement>('input[type="email"]')!, 'player@example.com'));
    await act(async () => button('Получить код')!.click());
    await settle();
    expect(document.body.textContent).toContain('на player@example.com');

    await reload();
    expect(document.body.textContent).toContain('Мы отправили код из 6 цифр на player@example.com');
    await act(async () => type(codeField()!, '123456'));
    await act(async () => button('Подтвердить')!.click());
    await settle();
    expect(sent.at(-1)?.[1]).toEqual(expect.objectContaining({ email_reset_password_token: 'reset-1', code: '123456' }));
    expect(document.body.textContent).toContain('Новый пароль');

    // The code is spent: a reload starts from the address, not from a code step that would be refused.
    await reload();
    expect(codeField()).toBeNull();
    expect(document.querySelector<HTMLInputElement>('input[type="email"]')).not.toBeNull();
  });

  it('a new-password step whose token expired goes back to the address, filled in, saying why, and a new code can be asked for there', async () => {
    const refused = 'Ссылка для смены пароля недействительна или устарела. Начните восстановление заново';
    const sent: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        sent.push(url);
        if (url.includes('code_check')) return Response.json({ new_password_token: 'np-1' });
        if (url.includes('create_new_password')) return Response.json({ message: refused }, { status: 401 });
        return Response.json({ email_reset_password_token: `reset-${sent.length}` });
      }),
    );
    // The code step as a reload finds it: the address typed before is known only to the flow.
    sessionStorage.setItem('code_flow:reset:email', JSON.stringify({ token: 'reset-0', sentTo: 'player@example.com', sentAt: Date.now() }));
    await mount();
    await act(async () => type(codeField()!, '123456'));
    await act(async () => button('Подтвердить')!.click());
    await settle();
    const [password, repeat] = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')];
    await act(async () => type(password!, 'new password 1'));
    await act(async () => type(repeat!, 'new password 1'));
    await act(async () => button('Сохранить пароль и войти')!.click());
    await settle();

    expect(document.body.textContent).toContain(refused);
    expect(document.querySelector('input[type="password"]')).toBeNull();
    expect(document.querySelector<HTMLInputElement>('input[type="email"]')!.value).toBe('player@example.com');
    await act(async () => button('Получить код')!.click());
    await settle();
    expect(sent.at(-1)).toBe('/api/email_reset_password_code_date');
    expect(document.body.textContent).toContain('Мы отправили код из 6 цифр на player@example.com');
  });
});
