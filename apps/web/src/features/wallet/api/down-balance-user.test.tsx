// @vitest-environment happy-dom
import type { Wallet } from '@adena/contract/lite';
import { QueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { tokenStore } from '../../../lib/api-client';
import { endSession, userQueryOptions } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { answer, cleanup, playerUser, renderHook, settle } from '../../../test/dom';
import { useDownBalanceUser } from './down-balance-user';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const walletOfB: Wallet = { id: 70, gamesserver_id: 1, gamesserver: 'Scryde x50', nick: 'Bee', balance: 9_000_000, balance_second: 0, new_message: false };
let qc: QueryClient;
beforeEach(() => {
  localStorage.setItem('access_token', 'token-a');
  qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY, enabled: false }, mutations: { networkMode: 'always' } } });
  qc.setQueryData(userQueryOptions().queryKey, playerUser(false));
});
afterEach(() => cleanup(null));

it('a withdrawal answered after A signed out and B signed in does not lower B’s wallet on screen', async () => {
  const pending: Array<(r: Response) => void> = [];
  vi.stubGlobal('fetch', vi.fn(async () => new Promise<Response>((resolve) => pending.push(resolve))));
  const { result, unmount } = await renderHook(qc, useDownBalanceUser);
  act(() => result.current.mutate({ gameServerId: 1, currency: 1, amount: 2_000_000, idempotencyKey: 'k' }));
  await settle();
  await act(async () => {
    endSession(qc);
    tokenStore.set('token-b');
    qc.setQueryData(walletsQueryOptions().queryKey, [walletOfB]);
  });
  await act(async () => pending[0]!(answer(200, { success: { id: 5, enter_currency: 2_000_000 } })));
  await settle();
  expect(qc.getQueryData(walletsQueryOptions().queryKey)?.[0]?.balance).toBe(9_000_000);
  await unmount();
});
