// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../../../lib/api-client';
import { userQueryOptions } from '../../../lib/session';
import { answer, renderHook } from '../../../test/dom';
import { useCodeVerificationRegister } from './code-verification-register';
import { useCreateNewPassword } from './create-new-password';
import { useLogin } from './login';
import { useRegister } from './register';
import { useResetPasswordCodeCheck } from './reset-password-code-check';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const user = { id: 5, name: 'Ася', email: 'a@example.com', phone: null, admin: false, vip: false, vip_until: null, telegram_linked: false, created_at: '2026-11-01T00:00:00Z' };
const sent = (fetch: ReturnType<typeof vi.fn>) => {
  const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
  return { url, body: JSON.parse(String(init.body)), bearer: new Headers(init.headers).get('Authorization') };
};

describe('the sign-in calls pick the method’s path and start the session', () => {
  let qc: QueryClient;
  beforeEach(() => {
    localStorage.clear();
    qc = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false } } });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('a phone sign-in goes to phone_login without a bearer and keeps the token and the user', async () => {
    tokenStore.set('stale');
    const fetch = vi.fn(async () => answer(200, { access_token: 'fresh', user }));
    vi.stubGlobal('fetch', fetch);
    const { result, unmount } = await renderHook(qc, useLogin);
    await act(() => result.current.mutateAsync({ phone: '+79000000000', password: 'secret123' }));
    expect(sent(fetch)).toEqual({ url: '/api/phone_login', body: { phone: '+79000000000', password: 'secret123' }, bearer: null });
    expect(tokenStore.get()).toBe('fresh');
    expect(qc.getQueryData(userQueryOptions().queryKey)).toEqual(user);
    await unmount();
  });

  it('sign-up answers the flow’s token, and its code check sends it under the method’s own name', async () => {
    const fetch = vi.fn(async () => answer(200, { phone_token: 'flow-1' }));
    vi.stubGlobal('fetch', fetch);
    const register = await renderHook(qc, useRegister);
    const token = await act(() => register.result.current.mutateAsync({ phone: '+79000000000', password: 'secret123', password_confirmation: 'secret123', name: undefined }));
    expect(token).toBe('flow-1');
    expect(sent(fetch).url).toBe('/api/phone_register');

    const verify = vi.fn(async () => answer(200, { access_token: 'fresh', user }));
    vi.stubGlobal('fetch', verify);
    const check = await renderHook(qc, useCodeVerificationRegister);
    await act(() => check.result.current.mutateAsync({ method: 'phone', token: 'flow-1', code: '123456' }));
    expect(sent(verify)).toMatchObject({ url: '/api/code_verification_phone_register', body: { phone_token: 'flow-1', code: '123456' } });
    expect(tokenStore.get()).toBe('fresh');
    await register.unmount();
    await check.unmount();
  });

  it('a reset’s code check answers the new_password_token, which is the bearer of the new password', async () => {
    const fetch = vi.fn(async () => answer(200, { new_password_token: 'np-1' }));
    vi.stubGlobal('fetch', fetch);
    const check = await renderHook(qc, useResetPasswordCodeCheck);
    const token = await act(() => check.result.current.mutateAsync({ method: 'email', token: 'reset-1', code: '123456' }));
    expect(token).toBe('np-1');
    expect(sent(fetch)).toMatchObject({ url: '/api/email_reset_password_code_check', body: { email_reset_password_token: 'reset-1', code: '123456' } });

    const create = vi.fn(async () => answer(200, { access_token: 'fresh', user }));
    vi.stubGlobal('fetch', create);
    const set = await renderHook(qc, useCreateNewPassword);
    await act(() => set.result.current.mutateAsync({ method: 'email', body: { password: 'secret123', password_confirmation: 'secret123' }, newPasswordToken: 'np-1' }));
    expect(sent(create)).toMatchObject({ url: '/api/email_create_new_password', bearer: 'Bearer np-1' });
    expect(tokenStore.get()).toBe('fresh');
    await check.unmount();
    await set.unmount();
  });
});
