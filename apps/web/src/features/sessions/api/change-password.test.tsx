// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../../../lib/api-client';
import { endSession, userQueryOptions } from '../../../lib/session';
import { answer, cleanup, playerUser, renderHook, settle } from '../../../test/dom';
import { useChangePassword } from './change-password';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('a password change answered after the sign-out', () => {
  afterEach(() => cleanup(null));

  it('does not sign the player back in with the new token', async () => {
    // Review finding: the late answer's startSession stored the new token and the user: the tab was signed in again.
    localStorage.setItem('access_token', 'token-a');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false }, mutations: { networkMode: 'always' } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    const pending: Array<(r: Response) => void> = [];
    vi.stubGlobal('fetch', vi.fn(async () => new Promise<Response>((resolve) => pending.push(resolve))));
    const { result, unmount } = await renderHook(qc, useChangePassword);
    act(() => result.current.mutate({ password: 'old-password-1', new_password: 'new-password-2', new_password_confirmation: 'new-password-2' }));
    await settle();
    await act(async () => endSession(qc));
    await act(async () => pending[0]!(answer(200, { access_token: 'token-a2', user: playerUser(false) })));
    await settle();
    expect(tokenStore.get()).toBeNull();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toBeNull();
    await unmount();
  });

  it('still goes on under the new token when nobody signed out', async () => {
    localStorage.setItem('access_token', 'token-a');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false }, mutations: { networkMode: 'always' } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { access_token: 'token-a2', user: playerUser(false) })));
    const { result, unmount } = await renderHook(qc, useChangePassword);
    await act(() => result.current.mutateAsync({ password: 'old-password-1', new_password: 'new-password-2', new_password_confirmation: 'new-password-2' }));
    expect(tokenStore.get()).toBe('token-a2');
    await unmount();
  });
});
