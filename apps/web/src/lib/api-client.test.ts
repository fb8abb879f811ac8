// @vitest-environment happy-dom
import { TWO_FACTOR_MESSAGES } from '@adena/contract';
import { errorMessage, routes } from '@adena/contract/lite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer } from '../test/dom';
import { ApiError, BAD_CODE_MESSAGE, refusedForSure, request, tokenStore } from './api-client';

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

describe('the second-factor code header', () => {
  afterEach(() => vi.unstubAllGlobals());

  /** fetch as a browser's: a header value outside Latin-1 throws before anything is sent. */
  const browserFetch = () => {
    const sent: Headers[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        const headers = init.headers as Record<string, string>;
        if (Object.values(headers).some((v) => [...v].some((c) => c.charCodeAt(0) > 0xff))) {
          throw new TypeError("Failed to execute 'fetch': String contains non ISO-8859-1 code point.");
        }
        sent.push(new Headers(headers));
        return answer(200, { success: true });
      }),
    );
    return sent;
  };

  it('a recovery code typed on the Russian layout goes as the Latin keys it was typed with', async () => {
    // Review finding: «фисву-апршо» (for «abcde-fghij») made fetch throw, reported as «Нет связи с сервером».
    const sent = browserFetch();
    await request(routes.getUser, { twoFactorCode: 'фисву-апршо' });
    expect(sent[0]!.get('X-Two-Factor-Code')).toBe('abcde-fghij');
  });

  it('a code that cannot be a header is refused as a 422, not as a lost connection, and nothing is sent', async () => {
    const sent = browserFetch();
    const err = await request(routes.getUser, { twoFactorCode: '12345€' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(sent).toHaveLength(0);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(422);
    expect((err as ApiError).message).toBe(TWO_FACTOR_MESSAGES.code);
    // A refusal: the request's Idempotency-Key is not kept in doubt.
    expect(refusedForSure(err)).toBe(true);
    expect(BAD_CODE_MESSAGE).toBe(TWO_FACTOR_MESSAGES.code);
  });
});
