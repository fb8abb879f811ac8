// @vitest-environment happy-dom
import type { AuthPriceData, Code } from '@adena/contract';
import type { RealtimeMessage, Wallet } from '@adena/contract/lite';
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { errorUserCodeQueryOptions } from '../../features/codes/api/get-error-user-code';
import { codeIncidentsQueryOptions } from '../../features/codes/api/code-incidents';
import { priceDataQueryOptions } from '../../features/codes/api/price-data';
import { historyQueryOptions } from '../../lib/requests-history';
import { walletsQueryOptions } from '../../lib/wallets';
import { applyRealtimeMessage, type RealtimeEffects, resync, SETTLE_MS } from './apply-message';

const code = (id: number, extra: Partial<Code> = {}): Code => ({
  id,
  nominal: 1_000_000,
  price: 1_010_000,
  status: 'active',
  sert: `ADN-${id}`,
  gamesserver_id: 1,
  pricekod_id: null,
  created_at: '2026-11-01T10:00:00.000Z',
  activated_at: null,
  ...extra,
});

const priceData = (over: Partial<AuthPriceData> = {}): AuthPriceData => ({
  id: 1,
  gamesserver: { id: 1, name: 'Scryde x50' },
  kods: [code(10)],
  pricekods: [{ id: 5, gamesserver_id: 1, nominal: 3_000_000, price: 3_030_000, count: 2, open_count: 1, created_at: '2026-11-01T10:00:00.000Z' }],
  svoy_variant_kods: [code(20, { nominal: 3_000_000, price: 3_030_000, pricekod_id: 5 })],
  standard_nominals: [{ nominal: 1_000_000, price: 1_010_000 }],
  code_fee_bp: 100,
  min_nominal: 100_000,
  wallet: { id: 7, balance: 5_000_000, balance_second: 40 },
  nick: 'Hero',
  save_nick: null,
  telegram_price: null,
  user_kod: { id: 99, gamesserver_id: 1, code_id: 99, nominal: 500_000, status: 'activated', activated_at: null },
  ...over,
});

const wallet = (gamesserver_id: number, balance: number): Wallet => ({
  id: gamesserver_id * 10,
  gamesserver_id,
  gamesserver: `Сервер ${gamesserver_id}`,
  nick: 'Hero',
  balance,
  balance_second: 0,
  new_message: false,
});

const msg = <N extends RealtimeMessage['name']>(name: N, data: Extract<RealtimeMessage, { name: N }>['data']) =>
  ({ channel: 'private:user.1', name, data }) as RealtimeMessage;

describe('realtime events change the query cache by SPEC.md section 4', () => {
  let qc: QueryClient;
  let effects: { openErrorCode: Mock<RealtimeEffects['openErrorCode']>; endSession: Mock<RealtimeEffects['endSession']>; notify: Mock<RealtimeEffects['notify']> };
  const authKey = priceDataQueryOptions(1, true).queryKey;
  const cached = () => qc.getQueryData(authKey) as AuthPriceData;

  beforeEach(() => {
    qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    effects = { openErrorCode: vi.fn(), endSession: vi.fn(), notify: vi.fn() };
    qc.setQueryData(walletsQueryOptions().queryKey, [wallet(1, 100), wallet(2, 200)]);
    qc.setQueryData(authKey, priceData());
  });

  it('balance updates only the wallet of its game server, and the price data’s wallet', () => {
    applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 2, balance: 999, balance_second: 3 }), effects);
    expect(qc.getQueryData(walletsQueryOptions().queryKey)?.map((w) => [w.gamesserver_id, w.balance, w.balance_second])).toEqual([
      [1, 100, 0],
      [2, 999, 3],
    ]);
    applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 1, balance: 4_000_000, balance_second: 41 }), effects);
    expect(cached().wallet).toEqual({ id: 7, balance: 4_000_000, balance_second: 41 });
  });

  it('balance wins over a wallets or price-data read already on its way: that older answer does not overwrite the event’s balance', async () => {
    const walletsKey = walletsQueryOptions().queryKey;
    let answerWallets!: (w: Wallet[]) => void;
    let answerPrices!: (d: AuthPriceData) => void;
    // A refetch on focus (or a resync) left before the event; the server read 5 000 000 then.
    const walletsRead = qc.fetchQuery({ queryKey: walletsKey, queryFn: () => new Promise<Wallet[]>((r) => (answerWallets = r)) });
    const pricesRead = qc.fetchQuery({ queryKey: authKey, queryFn: () => new Promise<AuthPriceData>((r) => (answerPrices = r)) });
    applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 1, balance: 7_000_000, balance_second: 0 }), effects);
    answerWallets([wallet(1, 5_000_000), wallet(2, 200)]);
    answerPrices(priceData({ wallet: { id: 7, balance: 5_000_000, balance_second: 0 } }));
    await Promise.allSettled([walletsRead, pricesRead]);
    expect(qc.getQueryData(walletsKey)?.find((w) => w.gamesserver_id === 1)?.balance).toBe(7_000_000);
    expect(cached().wallet.balance).toBe(7_000_000);
  });

  it('balance events that arrive out of order (sent by two server processes) are put right by a read a moment after the last', async () => {
    vi.useFakeTimers();
    try {
      const walletsKey = walletsQueryOptions().queryKey;
      // The server's truth after both changes: 80 (100 first, then 80).
      const reads = vi.fn(async () => [wallet(1, 80), wallet(2, 200)]);
      const unsubscribe = new QueryObserver(qc, { queryKey: walletsKey, queryFn: reads }).subscribe(() => {});
      await vi.advanceTimersByTimeAsync(0);
      const before = reads.mock.calls.length;
      applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 1, balance: 80, balance_second: 0 }), effects);
      applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 1, balance: 100, balance_second: 0 }), effects);
      expect(qc.getQueryData(walletsKey)?.[0]?.balance).toBe(100);
      await vi.advanceTimersByTimeAsync(SETTLE_MS);
      expect(reads.mock.calls.length).toBe(before + 1);
      expect(qc.getQueryData(walletsKey)?.[0]?.balance).toBe(80);
      expect(qc.getQueryState(authKey)?.isInvalidated).toBe(true);
      unsubscribe();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a del_sert that overtakes its sert leaves the code listed only until the price data is read again', async () => {
    vi.useFakeTimers();
    try {
      applyRealtimeMessage(qc, msg('del_sert', { gamesserver_id: 1, del_sert: 30 }), effects);
      applyRealtimeMessage(qc, msg('sert', { gamesserver_id: 1, code_id: 30, nominal: 1_000_000, sert: 'ADN-30' }), effects);
      expect(qc.getQueryState(authKey)?.isInvalidated).toBe(false);
      await vi.advanceTimersByTimeAsync(SETTLE_MS);
      expect(qc.getQueryState(authKey)?.isInvalidated).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('balance reads the history again: an operator’s completion changed a request’s status', () => {
    const page = historyQueryOptions(1, null).queryKey;
    qc.setQueryData(page, { data: [], total: 0 });
    applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 1, balance: 5, balance_second: 0 }), effects);
    expect(qc.getQueryState(page)?.isInvalidated).toBe(true);
  });

  it('balance of a wallet the page has not seen refetches the wallet list', () => {
    const spy = vi.spyOn(qc, 'invalidateQueries');
    applyRealtimeMessage(qc, msg('balance', { gamesserver_id: 3, balance: 1, balance_second: 0 }), effects);
    expect(spy).toHaveBeenCalledWith({ queryKey: ['wallets'] });
  });

  it('code_status updates the matching code in kods or svoy_variant_kods and the user’s code', () => {
    applyRealtimeMessage(qc, msg('code_status', { gamesserver_id: 1, code_id: 20, code_status: 'activated' }), effects);
    expect(cached().svoy_variant_kods[0]?.status).toBe('activated');
    expect(cached().kods[0]?.status).toBe('active');
    applyRealtimeMessage(qc, msg('code_status', { gamesserver_id: 1, code_id: 99, code_status: 'cancelled' }), effects);
    expect(cached().user_kod?.status).toBe('cancelled');
  });

  it('code_status activated tells the issuer once, naming the nominal', () => {
    applyRealtimeMessage(qc, msg('code_status', { gamesserver_id: 1, code_id: 10, code_status: 'activated' }), effects);
    applyRealtimeMessage(qc, msg('code_status', { gamesserver_id: 1, code_id: 10, code_status: 'activated' }), effects);
    expect(effects.notify).toHaveBeenCalledTimes(1);
    expect(String(effects.notify.mock.calls[0]?.[0]).replace(/\s/g, ' ')).toBe('Ваш код на 1 000 000 аден активирован');
  });

  it('request_status says a decision with adena in shorthand and coins in whole numbers', () => {
    const decided = (amount: number, currency_type: 1 | 2) =>
      msg('request_status', { id: 5, type: 'input', status: 'completed', amount, currency_type, gamesserver_id: 1, comment: null });
    applyRealtimeMessage(qc, decided(1_500_000, 1), effects);
    applyRealtimeMessage(qc, decided(1_500_000, 2), effects);
    expect(effects.notify.mock.calls.map((c) => String(c[0]).replace(/\s/g, ' '))).toEqual([
      'Пополнение на 1,5кк аден зачислено',
      'Пополнение на 1 500 000 монет эйнхасад зачислено',
    ]);
  });

  it('sert adds a code to the matching server’s list once; del_sert removes it', () => {
    const other = priceDataQueryOptions(2, true).queryKey;
    qc.setQueryData(other, priceData({ id: 2, kods: [], svoy_variant_kods: [] }));
    const sert = msg('sert', { gamesserver_id: 1, code_id: 11, nominal: 1_000_000, sert: 'ADN-NEW' });
    applyRealtimeMessage(qc, sert, effects);
    applyRealtimeMessage(qc, sert, effects);
    expect(cached().kods.map((c) => [c.id, c.sert, c.status, c.price, c.gamesserver_id])).toEqual([
      [11, 'ADN-NEW', 'active', 1_010_000, 1],
      [10, 'ADN-10', 'active', 1_010_000, 1],
    ]);
    expect((qc.getQueryData(other) as AuthPriceData).kods).toEqual([]);

    applyRealtimeMessage(qc, msg('del_sert', { gamesserver_id: 1, del_sert: 11 }), effects);
    applyRealtimeMessage(qc, msg('del_sert', { gamesserver_id: 1, del_sert: 20 }), effects);
    expect(cached().kods.map((c) => c.id)).toEqual([10]);
    expect(cached().svoy_variant_kods).toEqual([]);
  });

  it('events for a server whose price data is not cached leave the cache alone', () => {
    applyRealtimeMessage(qc, msg('sert', { gamesserver_id: 9, code_id: 1, nominal: 1, sert: 'X' }), effects);
    expect(qc.getQueryData(priceDataQueryOptions(9, true).queryKey)).toBeUndefined();
  });

  it('error_code opens the error-code dialog and sets the user’s error flag', () => {
    applyRealtimeMessage(qc, msg('error_code', { gamesserver_id: 1, code_id: 10, your_error_code_id: 77 }), effects);
    expect(effects.openErrorCode).toHaveBeenCalledWith(77);
    expect(qc.getQueryData(errorUserCodeQueryOptions().queryKey)?.error_codes_count).toBe(1);
  });

  it('session_ended ends the session', () => {
    applyRealtimeMessage(qc, msg('session_ended', { reason: 'blocked' }), effects);
    expect(effects.endSession).toHaveBeenCalledOnce();
  });

  it('a resync after a reconnect invalidates wallets, every server’s price data, the error flag and the code incidents', () => {
    qc.setQueryData(errorUserCodeQueryOptions().queryKey, { error_codes_count: 0 });
    qc.setQueryData(codeIncidentsQueryOptions().queryKey, []);
    resync(qc);
    expect(qc.getQueryState(walletsQueryOptions().queryKey)?.isInvalidated).toBe(true);
    expect(qc.getQueryState(authKey)?.isInvalidated).toBe(true);
    expect(qc.getQueryState(errorUserCodeQueryOptions().queryKey)?.isInvalidated).toBe(true);
    // An error_code missed while away: the dialog's list of incidents is read again too.
    expect(qc.getQueryState(codeIncidentsQueryOptions().queryKey)?.isInvalidated).toBe(true);
  });
});
