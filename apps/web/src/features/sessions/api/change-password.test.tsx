// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../../../lib/api-client';
import { endSession, userQueryOptions } from '../../../lib/session';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, playerUser, renderHook, settle } from '../../../test/dom';
import { useChangePassword } from './change-password';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('a password change answered after the sign-out', () => {
  afterEach(() => {
    useUi.getState().closeSnackbar();
    return cleanup(null);
  });

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

  /**
   * «Сменить пароль» sent; a read of the user goes out meanwhile and the server answers it 401 (the old token); then
   * the change gets `changeAnswer`, and the read's outcome is awaited.
   */
  async function readWhileChanging(changeAnswer: () => Response) {
    localStorage.setItem('access_token', 'token-a');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
    let answerChange: (r: Response) => void = () => {};
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/change_password') return new Promise<Response>((resolve) => (answerChange = resolve));
        return answer(401, { message: 'Нужно войти' });
      }),
    );
    const { result, unmount } = await renderHook(qc, useChangePassword);
    act(() => result.current.mutate({ password: 'old-password-1', new_password: 'new-password-2', new_password_confirmation: 'new-password-2' }));
    await settle();
    const read = qc.fetchQuery({ ...userQueryOptions(), staleTime: 0 });
    await settle();
    await act(async () => answerChange(changeAnswer()));
    await act(async () => void (await read));
    await settle();
    await unmount();
    return qc;
  }

  it('a read of the user answered 401 for the old token while the change was on its way: still signed in, no notice', async () => {
    // diff review, 2026-11-29: the server gives the session its new token when the change commits, before the answer
    // carrying it comes; a read sent meanwhile (a refocus) signed the tab out, said «Сеанс завершён», and the
    // change's answer was then dropped as another account's.
    const qc = await readWhileChanging(() => answer(200, { access_token: 'token-a2', user: playerUser(false) }));
    expect(tokenStore.get()).toBe('token-a2');
    expect(qc.getQueryData(userQueryOptions().queryKey)).toMatchObject({ id: playerUser(false).id });
    expect(useUi.getState().snackbar.open).toBe(false);
  });

  it('the change refused while a read answered 401: the 401 stands, signed out and told', async () => {
    await readWhileChanging(() => answer(401, { message: 'Нужно войти' }));
    expect(tokenStore.get()).toBeNull();
    expect(useUi.getState().snackbar).toMatchObject({ open: true, text: 'Сеанс завершён. Войдите снова' });
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
