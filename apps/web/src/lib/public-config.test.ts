// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, renderHook, settle } from '../test/dom';
import { DEFAULT_BRAND_NAME, useBrandName } from './public-config';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the public config', () => {
  it.each([
    ['the server’s BRAND_NAME', { brand_name: 'L2 Bank', support_email: null, support_telegram: null }, 'L2 Bank'],
    ['«Адена Кошелёк» from an answer without one', { support_email: null, support_telegram: null }, 'Адена Кошелёк'],
  ])('names the service: %s', async (_, body, name) => {
    let send!: (r: Response) => void;
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>((resolve) => (send = resolve))),
    );
    const { result, unmount } = await renderHook(new QueryClient(), useBrandName);
    expect(result.current).toBe(DEFAULT_BRAND_NAME);
    expect(DEFAULT_BRAND_NAME).toBe('Адена Кошелёк');
    await act(async () => send(answer(200, body)));
    await settle();
    expect(result.current).toBe(name);
    await unmount();
  });
});
