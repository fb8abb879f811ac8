// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRequestKeys } from '../hooks/use-request-key';
import { answer, playerUser } from '../test/dom';
import { remember } from './last-known';
import { endSession, startSession, userQueryOptions } from './session';

describe('signing out', () => {
  it('forgets the requests left in doubt: the next player of this tab is not answered from the last one\u2019s withdrawal', () => {
    const keys = useRequestKeys.getState();
    // A withdrawal whose answer was lost: its key is kept, so sending the same again would be answered from it.
    const key = keys.begin('take:1:1:1500000');
    keys.failed('take:1:1:1500000', key, new TypeError('Failed to fetch'));
    expect(useRequestKeys.getState().kept['take:1:1:1500000']?.key).toBe(key);
    endSession(new QueryClient());
    expect(useRequestKeys.getState().kept).toEqual({});
    expect(useRequestKeys.getState().begin('take:1:1:1500000')).not.toBe(key);
  });
});

describe('a session the server ended, or another account signing in over it', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
    useRequestKeys.setState({ kept: {} });
  });

  const asya = { ...playerUser(false), id: 5, name: 'Ася' };
  const boris = { ...playerUser(false), id: 6, name: 'Борис' };

  /** A tab signed in as Ася with her wallets read, kept for offline, and a withdrawal in doubt. */
  function signedInAsAsya() {
    localStorage.setItem('access_token', 'asya-token');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    qc.setQueryData(userQueryOptions().queryKey, asya);
    qc.setQueryData(['wallets'], [{ id: 1, balance: 999 }]);
    qc.setQueryData(['gamesservers'], [{ id: 1 }]);
    remember('wallets', [{ id: 1, balance: 999 }]);
    remember('user', asya);
    const keys = useRequestKeys.getState();
    keys.failed('take:1:1:1500000', keys.begin('take:1:1:1500000'), new TypeError('Failed to fetch'));
    return qc;
  }
  const leftovers = (qc: QueryClient) => ({
    wallets: qc.getQueryData(['wallets']),
    kept: Object.keys(useRequestKeys.getState().kept),
    stored: Object.keys(localStorage).filter((k) => k.startsWith('last_known:')),
  });

  it("a 401 on the user's read forgets what the tab held for them, as a logout does (a shared device)", async () => {
    // Review finding: only the token went; the balances stayed in storage and the amounts in doubt in memory.
    const qc = signedInAsAsya();
    vi.stubGlobal('fetch', vi.fn(async () => answer(401, { message: 'Войдите снова' })));
    expect(await qc.fetchQuery({ ...userQueryOptions(), staleTime: 0 })).toBeNull();
    expect(localStorage.getItem('access_token')).toBeNull();
    expect(leftovers(qc)).toEqual({ wallets: undefined, kept: [], stored: [] });
    expect(qc.getQueryData(['gamesservers'])).toEqual([{ id: 1 }]);
  });

  it('another account signing in over the first (the mini app\u2019s switch) starts from nothing of the first\u2019s; the same account keeps its reads', () => {
    const qc = signedInAsAsya();
    startSession(qc, { access_token: 'asya-new', user: asya });
    expect(leftovers(qc).wallets).toEqual([{ id: 1, balance: 999 }]);
    startSession(qc, { access_token: 'boris-token', user: boris });
    expect(leftovers(qc)).toEqual({ wallets: undefined, kept: [], stored: [] });
    expect(qc.getQueryData(userQueryOptions().queryKey)).toEqual(boris);
    expect(localStorage.getItem('access_token')).toBe('boris-token');
  });
});

describe('a user read still on its way when another account signs in', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
  });

  it("its answer for the old token (a 401, or the old account) neither signs the new account out nor replaces it", async () => {
    // Diff review: the 401 of the old token cleared the new one and forgot the new account's reads.
    for (const old of [() => answer(401, { message: 'Войдите снова' }), () => answer(200, { ...playerUser(false), id: 5, name: 'Ася' })]) {
      localStorage.setItem('access_token', 'asya-token');
      const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
      let release: (r: Response) => void = () => {};
      vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>((r) => (release = r))));
      const read = qc.fetchQuery({ ...userQueryOptions(), staleTime: 0 });
      await new Promise((r) => setTimeout(r, 0));
      const boris = { ...playerUser(false), id: 6, name: 'Борис' };
      startSession(qc, { access_token: 'boris-token', user: boris });
      qc.setQueryData(['wallets'], [{ id: 2, balance: 7 }]);
      release(old());
      await read;
      expect(localStorage.getItem('access_token')).toBe('boris-token');
      expect(qc.getQueryData(userQueryOptions().queryKey)).toEqual(boris);
      expect(qc.getQueryData(['wallets'])).toEqual([{ id: 2, balance: 7 }]);
      vi.unstubAllGlobals();
    }
  });
});
