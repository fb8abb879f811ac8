// @vitest-environment happy-dom
import type { AuthPriceData } from '@adena/contract';
import type { Wallet } from '@adena/contract/lite';
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { walletsQueryOptions } from '../../../lib/wallets';
import { answer, renderHook } from '../../../test/dom';
import { useActivationCode } from './activation-code';
import { useCancelCode } from './cancel-code';
import { useCreatePricekod } from './create-pricekod';
import { useDeletePricekod } from './delete-pricekod';
import { myCodesQueryOptions } from './my-codes';
import { priceDataQueryOptions } from './price-data';
import { useShowCode } from './show-code';
import { useUpdatePricekod } from './update-pricekod';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const data = (): AuthPriceData => ({
  id: 1,
  gamesserver: { id: 1, name: 'Scryde x50' },
  kods: [
    {
      id: 3,
      nominal: 1_000_000,
      price: 1_020_000,
      status: 'active',
      sert: 'ADN-OLD',
      gamesserver_id: 1,
      pricekod_id: null,
      created_at: '2026-11-01T00:00:00Z',
      activated_at: null,
    },
  ],
  pricekods: [],
  svoy_variant_kods: [],
  standard_nominals: [{ nominal: 1_000_000, price: 1_020_000 }],
  code_fee_bp: 200,
  min_nominal: 100_000,
  wallet: { id: 7, balance: 5_000_000, balance_second: 0 },
  nick: 'Hero',
  save_nick: null,
  telegram_price: null,
  user_kod: null,
});
const wallet: Wallet = { id: 7, gamesserver_id: 1, gamesserver: 'Scryde x50', nick: 'Hero', balance: 5_000_000, balance_second: 0, new_message: false };

describe('the codes calls change the cache by SPEC.md section 4', () => {
  let qc: QueryClient;
  const key = priceDataQueryOptions(1, true).queryKey;
  const cached = () => qc.getQueryData(key) as AuthPriceData;

  beforeEach(() => {
    localStorage.setItem('access_token', 'token');
    // Nothing refetches during a test: invalidation only marks the data stale.
    qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY, enabled: false } } });
    qc.setQueryData(key, data());
    qc.setQueryData(walletsQueryOptions().queryKey, [wallet]);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('showing a code adds it with its sert and status, and takes summa from the balance', async () => {
    const fetch = vi.fn(async () => answer(200, { success: true, summa: 1_020_000, sert: 'ADN-NEW', status: 'active', code_id: 9 }));
    vi.stubGlobal('fetch', fetch);
    const { result, unmount } = await renderHook(qc, useShowCode);
    await act(() => result.current.mutateAsync({ gameServerId: 1, walletId: 7, nominal: 1_000_000, idempotencyKey: 'k1' }));
    const init = (fetch.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(JSON.parse(String(init.body))).toEqual({ gamesserver_id: 1, wallet_id: 7, nominal: 1_000_000 });
    expect(new Headers(init.headers).get('Idempotency-Key')).toBe('k1');
    expect(cached().kods.find((c) => c.id === 9)).toMatchObject({ sert: 'ADN-NEW', status: 'active', nominal: 1_000_000, price: 1_020_000 });
    expect(cached().wallet.balance).toBe(3_980_000);
    expect(qc.getQueryData(walletsQueryOptions().queryKey)?.[0]?.balance).toBe(3_980_000);
    await unmount();
  });

  it('an error answer carrying a status overwrites the code’s status', async () => {
    vi.stubGlobal('fetch', async () => answer(409, { message: 'Код уже активирован или отменён', status: 'cancelled' }));
    const { result, unmount } = await renderHook(qc, useShowCode);
    await act(async () => {
      await result.current.mutateAsync({ gameServerId: 1, walletId: 7, nominal: 1_000_000, codeId: 3, idempotencyKey: 'k2' }).catch(() => {});
    });
    expect(cached().kods[0]?.status).toBe('cancelled');
    expect(cached().wallet.balance).toBe(5_000_000);
    await unmount();
  });

  it('a successful activation sets the user’s code and its status', async () => {
    vi.stubGlobal('fetch', async () => answer(200, { success: { code_id: 44, nominal: 2_000_000, gamesserver_id: 1, status: 'activated' } }));
    const { result, unmount } = await renderHook(qc, useActivationCode);
    await act(() => result.current.mutateAsync('ADN-SOMEONE'));
    expect(cached().user_kod).toMatchObject({ code_id: 44, nominal: 2_000_000, status: 'activated' });
    await unmount();
  });
});

describe('«Все мои коды» is read again after every call that changes my codes', () => {
  afterEach(() => vi.unstubAllGlobals());

  const cases: Array<{ name: string; body: unknown; run: (qc: QueryClient) => Promise<unknown> }> = [
    {
      name: 'cancelling a code',
      body: { success: 3, summa: 1_020_000 },
      run: async (qc) => {
        const { result, unmount } = await renderHook(qc, useCancelCode);
        await act(() => result.current.mutateAsync({ id: 3, gamesserver_id: 1, idempotencyKey: 'k' }));
        await unmount();
      },
    },
    {
      name: 'buying a code',
      body: { success: true, summa: 1_020_000, sert: 'ADN-NEW', status: 'active', code_id: 9 },
      run: async (qc) => {
        const { result, unmount } = await renderHook(qc, useShowCode);
        await act(() => result.current.mutateAsync({ gameServerId: 1, walletId: 7, nominal: 1_000_000, idempotencyKey: 'k' }));
        await unmount();
      },
    },
    {
      name: 'creating a batch',
      body: { success: true, summa: 3_060_000, count: 3, nominal: 1_000_000, codes: [] },
      run: async (qc) => {
        const { result, unmount } = await renderHook(qc, useCreatePricekod);
        await act(() => result.current.mutateAsync({ gamesserver_id: 1, nominal: 1_000_000, count: 3, idempotencyKey: 'k' }));
        await unmount();
      },
    },
    {
      name: 'editing a batch',
      body: { success: true, summa: 1_020_000, count: 4, nominal: 1_000_000 },
      run: async (qc) => {
        const { result, unmount } = await renderHook(qc, useUpdatePricekod);
        await act(() => result.current.mutateAsync({ id: 9, gamesserver_id: 1, nominal: 1_000_000, count: 4, idempotencyKey: 'k' }));
        await unmount();
      },
    },
    {
      name: 'deleting a batch',
      body: { success: 9, summa: 3_060_000 },
      run: async (qc) => {
        const { result, unmount } = await renderHook(qc, useDeletePricekod);
        await act(() => result.current.mutateAsync({ id: 9, gamesserver_id: 1, idempotencyKey: 'k' }));
        await unmount();
      },
    },
  ];

  for (const c of cases) {
    it(`${c.name} marks every page of «Все мои коды» stale`, async () => {
      localStorage.setItem('access_token', 'token');
      vi.stubGlobal('fetch', async () => answer(200, c.body));
      const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY, enabled: false } } });
      const pages = [myCodesQueryOptions(1, 1, null).queryKey, myCodesQueryOptions(2, 1, 'active').queryKey];
      for (const key of pages) qc.setQueryData(key, { data: [], total: 0 });
      await c.run(qc);
      for (const key of pages) expect(qc.getQueryState(key)?.isInvalidated).toBe(true);
    });
  }
});
