// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { answer, cleanup, mountWithQuery, playerUser, renderHook, settle, type } from '../../../test/dom';
import { useCreateNewPassword } from '../api/create-new-password';
import { useLogin } from '../api/login';
import { TwoFactorStep } from './two-factor-step';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe("the sign-in's second step", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('takes a recovery code typed on the Russian layout as the Latin one', async () => {
    const bodies: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        bodies.push(JSON.parse(String(init.body)));
        return answer(200, { access_token: 'token-new', user: playerUser(true) });
      }),
    );
    sessionStorage.setItem('two_factor_token', 'pending');
    ({ root } = await mountWithQuery(() => createElement(TwoFactorStep)));
    await act(async () => type(document.querySelector('[data-testid="two-factor-code"]') as HTMLInputElement, 'фисву-апршо'));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Подтвердить')!.click());
    await settle();
    expect(bodies).toEqual([{ two_factor_token: 'pending', code: 'abcdefghij' }]);
  });

  it("a reset's pending sign-in that expired leads back to the reset, not to a sign-in with a password never saved", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/phone_create_new_password') return answer(200, { two_factor_required: true, two_factor_token: 'pending-reset' });
        // Past the purge the server no longer knows the sign-in carried a reset: its plain words.
        return answer(401, { message: 'Время на ввод кода истекло. Войдите снова' });
      }),
    );
    const qc = new QueryClient();
    const { result, unmount } = await renderHook(qc, useCreateNewPassword);
    await act(async () => void (await result.current.mutateAsync({ method: 'phone', body: { password: 'new password 1', password_confirmation: 'new password 1' }, newPasswordToken: 'np' })));
    await unmount();

    ({ root } = await mountWithQuery(() => createElement(TwoFactorStep)));
    const link = () => document.querySelector('a');
    expect(link()?.textContent).toBe('Начать восстановление пароля заново');
    expect(link()?.getAttribute('href')).toBe('/auth/reset/phone');
    await act(async () => type(document.querySelector('[data-testid="two-factor-code"]') as HTMLInputElement, '123456'));
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Подтвердить')!.click());
    await settle();
    expect(document.body.textContent).toContain('Время на ввод кода истекло, новый пароль не сохранён. Начните восстановление пароля заново');
    expect(document.body.textContent).not.toContain('Войдите снова');
    expect(link()?.getAttribute('href')).toBe('/auth/reset/phone');
  });

  it("a password sign-in's pending step keeps «Войти заново», even after a reset's pending step in the tab", async () => {
    sessionStorage.setItem('two_factor_reset', 'email');
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { two_factor_required: true, two_factor_token: 'pending-login' })));
    const qc = new QueryClient();
    const { result, unmount } = await renderHook(qc, useLogin);
    await act(async () => void (await result.current.mutateAsync({ email: 'a@example.com', password: 'password 1' })));
    await unmount();
    ({ root } = await mountWithQuery(() => createElement(TwoFactorStep)));
    expect(document.querySelector('a')?.textContent).toBe('Войти заново');
  });

  it("the account's wrong-code limit only asks to wait: the pending sign-in stays for the next code; five wrong ones end it", async () => {
    const bodies: unknown[] = [];
    const answers = [
      () => new Response(JSON.stringify({ message: 'Слишком много попыток. Попробуйте позже' }), { status: 429, headers: { 'Content-Type': 'application/json', 'Retry-After': '60' } }),
      () => answer(429, { message: 'Слишком много неверных кодов. Войдите снова' }),
    ];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        bodies.push(JSON.parse(String(init.body)));
        return answers.shift()!();
      }),
    );
    sessionStorage.setItem('two_factor_token', 'pending');
    ({ root } = await mountWithQuery(() => createElement(TwoFactorStep)));
    const press = async () => {
      await act(async () => type(document.querySelector('[data-testid="two-factor-code"]') as HTMLInputElement, '123456'));
      await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Подтвердить')!.click());
      await settle();
    };
    await press();
    expect(document.body.textContent).toContain('Слишком много попыток');
    expect(sessionStorage.getItem('two_factor_token')).toBe('pending');
    await press();
    expect(bodies).toEqual([
      { two_factor_token: 'pending', code: '123456' },
      { two_factor_token: 'pending', code: '123456' },
    ]);
    expect(document.body.textContent).toContain('Слишком много неверных кодов. Войдите снова');
    expect(sessionStorage.getItem('two_factor_token')).toBeNull();
  });
});
