// @vitest-environment happy-dom
import type { Wallet } from '@adena/contract/lite';
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bumpBalanceEpoch } from '../../../lib/balance-epoch';
import { allHistoryKey } from '../../../lib/requests-history';
import { walletsQueryOptions } from '../../../lib/wallets';
import { answer, renderHook } from '../../../test/dom';
import { useDownBalanceUser } from './down-balance-user';
import { useSaveNick } from './save-nick';
import { useUpBalanceUser } from './up-balance-user';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const sent = (fetch: ReturnType<typeof vi.fn>) => {
  const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
  return { url, body: JSON.parse(String(init.body)), key: new Headers(init.headers).get('Idempotency-Key') };
};

const wallet: Wallet = { id: 7, gamesserver_id: 1, gamesserver: 'Scryde x50', nick: 'Hero', balance: 5_000_000, balance_second: 300, new_message: false };
const request = (fields: object) => ({
  id: 12,
  type: 'output',
  currency_type: 1,
  amount: 1_000_000,
  status: 'pending',
  gamesserver_id: 1,
  gamesserver: 'Scryde x50',
  nick: 'Hero',
  cashier_nick: 'AdenaKassa',
  comment: null,
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
  ...fields,
});

describe('the wallet calls speak the wire words and change the cache by SPEC.md section 4', () => {
  let qc: QueryClient;
  const balances = () => qc.getQueryData(walletsQueryOptions().queryKey)?.map((w) => [w.balance, w.balance_second]);

  beforeEach(() => {
    localStorage.setItem('access_token', 'token');
    qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY, enabled: false } } });
    qc.setQueryData(walletsQueryOptions().queryKey, [wallet]);
    qc.setQueryData([...allHistoryKey, { page: 1, gameServerId: 1 }], { data: [], total: 0 });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('a deposit goes to the currency’s own path with its idempotency key and marks the history stale', async () => {
    const fetch = vi.fn(async () => answer(200, { success: request({ type: 'input', currency_type: 2, amount: 50 }) }));
    vi.stubGlobal('fetch', fetch);
    const { result, unmount } = await renderHook(qc, useUpBalanceUser);
    await act(() => result.current.mutateAsync({ gameServerId: 1, currency: 2, amount: 50, idempotencyKey: 'k1' }));
    expect(sent(fetch)).toEqual({ url: '/api/up_balance_user_second_currency/', body: { gamesserver_id: 1, amount: 50, currency_type: 2 }, key: 'k1' });
    expect(balances()).toEqual([[5_000_000, 300]]);
    expect(qc.getQueryState([...allHistoryKey, { page: 1, gameServerId: 1 }])?.isInvalidated).toBe(true);
    await unmount();
  });

  it('a withdrawal lowers the balance by enter_currency at once', async () => {
    const fetch = vi.fn(async () => answer(200, { success: request({ enter_currency: 1_000_000 }) }));
    vi.stubGlobal('fetch', fetch);
    const { result, unmount } = await renderHook(qc, useDownBalanceUser);
    await act(() => result.current.mutateAsync({ gameServerId: 1, currency: 1, amount: 1_000_000, idempotencyKey: 'k2' }));
    expect(sent(fetch)).toEqual({ url: '/api/down_balance_user/', body: { gamesserver_id: 1, amount: 1_000_000, currency_type: 1 }, key: 'k2' });
    expect(balances()).toEqual([[4_000_000, 300]]);
    // The server's figure is read again after it: a replayed retry must not stay subtracted twice.
    expect(qc.getQueryState(walletsQueryOptions().queryKey)?.isInvalidated).toBe(true);
    await unmount();
  });

  it('a withdrawal leaves the balance to a realtime balance event that came while it ran', async () => {
    vi.stubGlobal('fetch', async () => {
      bumpBalanceEpoch(1);
      return answer(200, { success: request({ currency_type: 2, amount: 100, enter_currency: 100 }) });
    });
    const { result, unmount } = await renderHook(qc, useDownBalanceUser);
    await act(() => result.current.mutateAsync({ gameServerId: 1, currency: 2, amount: 100, idempotencyKey: 'k3' }));
    expect(balances()).toEqual([[5_000_000, 300]]);
    await unmount();
  });

  it('a nick is sent under the wire’s gamesserver_id', async () => {
    const fetch = vi.fn(async () => answer(200, { success: 'Ник сохранён' }));
    vi.stubGlobal('fetch', fetch);
    const { result, unmount } = await renderHook(qc, useSaveNick);
    await act(() => result.current.mutateAsync({ gameServerId: 1, nick: 'Hero' }));
    expect(sent(fetch)).toMatchObject({ url: '/api/save_nick/', body: { gamesserver_id: 1, nick: 'Hero' } });
    expect(qc.getQueryState(walletsQueryOptions().queryKey)?.isInvalidated).toBe(true);
    await unmount();
  });
});
