// @vitest-environment happy-dom
import { errorMessage, routes } from '@adena/contract/lite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, request } from './api-client';

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
