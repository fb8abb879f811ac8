// @vitest-environment happy-dom
import { errorMessage, routes } from '@adena/contract/lite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, request, tokenStore } from './api-client';

describe('an answer that is not ours', () => {
  afterEach(() => vi.unstubAllGlobals());

  const failWith = async (status: number, body: string, headers: Record<string, string> = {}) => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(body, { status, headers })));
    return request(routes.getUser).then(
      () => null as unknown as ApiError,
      (e: unknown) => e as ApiError,
    );
  };

  it("a proxy's page for a gateway error or timeout says the service is away a moment, not an application error", async () => {
    for (const status of [502, 503, 504]) expect((await failWith(status, '<html>Bad Gateway</html>')).message).toBe(errorMessage('UNAVAILABLE'));
    expect((await failWith(500, '')).message).toBe(errorMessage('INTERNAL'));
  });

  it("carries a 429's Retry-After in seconds", async () => {
    const err = await failWith(429, JSON.stringify({ message: 'Слишком много попыток' }), { 'Content-Type': 'application/json', 'Retry-After': '42' });
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).retryAfter).toBe(42);
  });
});

describe('the session token, shared by the tabs', () => {
  afterEach(() => localStorage.clear());

  it("tells its subscribers of another tab's sign-in or sign-out, and of this tab's own apart from them", () => {
    // Review finding: only this tab's own changes were heard; a tab kept one account's name and socket while its calls carried another's token.
    localStorage.setItem('access_token', 'token-x');
    const heard = vi.fn();
    const off = tokenStore.subscribe(heard);
    localStorage.setItem('access_token', 'token-y');
    window.dispatchEvent(new StorageEvent('storage', { key: 'access_token', oldValue: 'token-x', newValue: 'token-y' }));
    localStorage.clear();
    window.dispatchEvent(new StorageEvent('storage', { key: null }));
    // Another key of the app (the selected server) is not the session's.
    window.dispatchEvent(new StorageEvent('storage', { key: 'gamesserver', oldValue: '1', newValue: '2' }));
    expect(heard.mock.calls).toEqual([[true], [true]]);
    tokenStore.set('token-z');
    expect(heard).toHaveBeenLastCalledWith(false);
    off();
    window.dispatchEvent(new StorageEvent('storage', { key: 'access_token', oldValue: 'token-z', newValue: 'token-w' }));
    expect(heard).toHaveBeenCalledTimes(3);
  });
});
