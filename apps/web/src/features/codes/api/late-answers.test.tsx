// @vitest-environment happy-dom
import type { AuthPriceData } from '@adena/contract';
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../../../lib/api-client';
import { endSession, userQueryOptions } from '../../../lib/session';
import { answer, cleanup, playerUser, renderHook, settle } from '../../../test/dom';
import { priceDataQueryOptions } from './price-data';
import { useShowCode } from './show-code';
import { useBuyVip } from './vip';
import { useRevealCodes } from './price-data';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** One server's signed-in price data: player A's open code with its text, or player B's empty list. */
const priceData = (kods: AuthPriceData['kods']): AuthPriceData => ({
  id: 1,
  gamesserver: { id: 1, name: 'Scryde x50' },
  kods,
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
const codeOfA = {
  id: 3,
  nominal: 1_000_000,
  price: 1_020_000,
  status: 'active' as const,
  sert: 'ADN-OF-A',
  gamesserver_id: 1,
  pricekod_id: null,
  created_at: '2026-11-01T00:00:00Z',
  activated_at: null,
};
const playerB = { ...playerUser(false), id: 6, name: 'Другой' };

/** Every call hangs until the test answers it. */
function held() {
  const pending: Array<(r: Response) => void> = [];
  vi.stubGlobal('fetch', vi.fn(async () => new Promise<Response>((resolve) => pending.push(resolve))));
  return pending;
}

describe('answers that come after player A signed out of this tab', () => {
  let qc: QueryClient;
  const key = priceDataQueryOptions(1, true).queryKey;

  beforeEach(() => {
    localStorage.setItem('access_token', 'token-a');
    qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY, enabled: false }, mutations: { networkMode: 'always' } } });
    qc.setQueryData(userQueryOptions().queryKey, playerUser(true));
  });
  afterEach(() => cleanup(null));

  /** A signs out; B signs in on the same tab and reads the same server's codes. */
  const switchToB = () =>
    act(async () => {
      endSession(qc);
      tokenStore.set('token-b');
      qc.setQueryData(userQueryOptions().queryKey, playerB);
      qc.setQueryData(key, priceData([]));
    });

  it('«Показать коды»: the late answer leaves no code text of A in the cache, neither after the sign-out nor in B’s list', async () => {
    // Review finding: the late answer set A's revealed codes as the price data; B, signed in on that tab, saw them.
    const pending = held();
    const { result, unmount } = await renderHook(qc, () => useRevealCodes(1));
    act(() => result.current.mutate());
    await settle();
    await act(async () => endSession(qc));
    await act(async () => pending[0]!(answer(200, priceData([codeOfA]))));
    await settle();
    expect(qc.getQueryData(key)).toBeUndefined();

    // Again, with B signed in before the answer comes.
    act(() => result.current.mutate());
    await settle();
    await switchToB();
    await act(async () => pending[1]!(answer(200, priceData([codeOfA]))));
    await settle();
    expect((qc.getQueryData(key) as AuthPriceData).kods).toEqual([]);
    await unmount();
  });

  it('«Купить код»: the late answer does not add A’s code to B’s list', async () => {
    const pending = held();
    const { result, unmount } = await renderHook(qc, useShowCode);
    act(() => result.current.mutate({ gameServerId: 1, walletId: 7, nominal: 1_000_000, idempotencyKey: 'k' }));
    await settle();
    await switchToB();
    await act(async () => pending[0]!(answer(200, { success: true, summa: 1_020_000, sert: 'ADN-NEW-OF-A', status: 'active', code_id: 9 })));
    await settle();
    expect((qc.getQueryData(key) as AuthPriceData).kods).toEqual([]);
    expect((qc.getQueryData(key) as AuthPriceData).wallet.balance).toBe(5_000_000);
    await unmount();
  });

  it('«Купить код»: the same player’s password changed meanwhile (a new token, the same account) still gets the code', async () => {
    // Diff review: comparing raw tokens dropped this answer; the code paid for was not shown and could be bought twice.
    const pending = held();
    qc.setQueryData(key, priceData([]));
    const { result, unmount } = await renderHook(qc, useShowCode);
    act(() => result.current.mutate({ gameServerId: 1, walletId: 7, nominal: 1_000_000, idempotencyKey: 'k' }));
    await settle();
    await act(async () => tokenStore.set('token-a-after-password-change'));
    await act(async () => pending[0]!(answer(200, { success: true, summa: 1_020_000, sert: 'ADN-PAID-BY-A', status: 'active', code_id: 9 })));
    await settle();
    expect((qc.getQueryData(key) as AuthPriceData).kods.map((k) => k.sert)).toEqual(['ADN-PAID-BY-A']);
    await unmount();
  });

  it('VIP: the late answer does not put A back as the signed-in user', async () => {
    // Review finding: the answer's user was set as the user query after the sign-out.
    const pending = held();
    const { result, unmount } = await renderHook(qc, useBuyVip);
    act(() => result.current.mutate({ months: 1, idempotencyKey: 'k' }));
    await settle();
    await act(async () => endSession(qc));
    await act(async () => pending[0]!(answer(200, { success: { ...playerUser(true), vip: true, vip_until: '2027-01-01T00:00:00.000Z' } })));
    await settle();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toBeNull();

    // Again, with B signed in before the answer comes: B stays the user.
    act(() => result.current.mutate({ months: 1, idempotencyKey: 'k2' }));
    await settle();
    await switchToB();
    await act(async () => pending[1]!(answer(200, { success: { ...playerUser(true), vip: true, vip_until: '2027-01-01T00:00:00.000Z' } })));
    await settle();
    expect(qc.getQueryData(userQueryOptions().queryKey)).toEqual(playerB);
    await unmount();
  });
});
