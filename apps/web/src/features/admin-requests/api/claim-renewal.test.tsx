// @vitest-environment happy-dom
import type { AdminRequest } from '@adena/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MY_CLAIMS_READ_MS, useClaimKeeper } from './requests';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const ME = 3;
const MIN = 60_000;
const TIMEOUT = 15 * MIN;

/** A pending request as the server lists it, claimed at `at` (the server's clock) by `by` under a 15-minute timeout. */
const claimedAt = (id: number, at: number, by = ME): AdminRequest => ({
  id,
  type: 'input',
  currency_type: 1,
  amount: 1_000_000,
  status: 'pending',
  gamesserver_id: 1,
  gamesserver: 'Scryde x50',
  nick: 'Hero',
  cashier_nick: 'AdenaKassa',
  comment: null,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
  user: { id: 5, name: 'Ася', email: 'asya@example.com', phone: null, vip: false, blocked: false },
  processed_by: null,
  processed_at: null,
  claimed_by: { id: by, name: 'Оператор' },
  claimed_at: new Date(at).toISOString(),
  claim_lapses_at: new Date(at + TIMEOUT).toISOString(),
  nick_shared: false,
  claim_dropped_by: null,
  processed_by_name: null,
});
/** Claimed `agoMs` ago by this browser's clock. */
const claimed = (id: number, agoMs: number, by = ME) => claimedAt(id, Date.now() - agoMs, by);

describe('the admin area keeps the operator’s claims alive, wherever their cards are', () => {
  let mine: AdminRequest[] = [];
  const calls: string[] = [];
  // The server's clock against this browser's: a browser whose clock is off must not renew in a loop.
  let serverSkewMs = 0;
  // The service refuses renewals (a restart, a blip) while this is set.
  let down = false;
  // The whole service answers 503, list reads too, while this is set.
  let outage = false;
  // The server counts the claim lapsed at the next renewal (it reached the server late): refused, then not listed.
  let lapsedOnServer = false;
  const bodies: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    localStorage.setItem('access_token', 'token');
    calls.length = 0;
    serverSkewMs = 0;
    down = false;
    outage = false;
    lapsedOnServer = false;
    bodies.length = 0;
    mine = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push(`${init?.method ?? 'GET'} ${url}`);
        if (outage) return Response.json({ message: 'Сервис временно недоступен' }, { status: 503 });
        const serverNow = Date.now() + serverSkewMs;
        const renewed = /\/api\/admin\/requests\/(\d+)\/claim$/.exec(url);
        if (renewed && down) return Response.json({ message: 'Сервис временно недоступен' }, { status: 503 });
        if (renewed) bodies.push(String(init?.body));
        if (renewed && lapsedOnServer) {
          // Lapsed at the server from now on: refused, and no longer listed.
          mine = [];
          return Response.json({ message: 'Ваш захват истёк: возьмите заявку в работу снова' }, { status: 409 });
        }
        if (renewed) {
          // The server renews the holder's claim: its times start again, by the server's clock. Like the server, it
          // grants a claim that lapsed meanwhile just the same (anyone may claim it then).
          mine = mine.map((r) => (r.id === Number(renewed[1]) ? claimedAt(r.id, serverNow) : r));
          return Response.json({ success: mine.find((r) => r.id === Number(renewed[1])) });
        }
        // Standing claims only, as the server lists `claimed_by`.
        const standing = mine.filter((r) => Date.parse(r.claim_lapses_at!) > serverNow);
        return Response.json({ data: standing, total: standing.length });
      }),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  async function area(): Promise<{ qc: QueryClient; unmount(): Promise<void> }> {
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    function Probe() {
      useClaimKeeper(ME);
      return null;
    }
    const root = createRoot(document.createElement('div'));
    await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(Probe))));
    await settle();
    return { qc, unmount: () => act(async () => root.unmount()) };
  }
  /** Lets the reads, renewals and re-reads started by now finish. */
  const settle = async () => {
    // A millisecond a step: a timer of 0 ms set during a tick is due 1 ms later (fake-timers' rule).
    for (let i = 0; i < 5; i++) await act(async () => vi.advanceTimersByTimeAsync(1));
  };
  const renewals = () => calls.filter((c) => c.startsWith('POST'));
  const reads = () => calls.filter((c) => c.startsWith('GET'));

  it('renews a claim first seen 12 minutes into its 15 at once, and then a third into each new timeout', async () => {
    // Review finding: renewal was a fixed 4-minute timer from when the card appeared; this claim lapsed first.
    mine = [claimed(7, 12 * MIN)];
    const a = await area();
    expect(calls[0]).toMatch(/^GET \/api\/admin\/requests\?.*claimed_by=3/);
    expect(renewals()).toEqual(['POST /api/admin/requests/7/claim']);
    await act(async () => vi.advanceTimersByTimeAsync(5 * MIN - 1_000));
    expect(renewals()).toHaveLength(1);
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(renewals()).toHaveLength(2);
    // Twenty minutes on the player's card or another page: still renewed, never lapsed.
    await act(async () => vi.advanceTimersByTimeAsync(20 * MIN));
    expect(renewals()).toHaveLength(6);
    expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeGreaterThan(Date.now());
    await a.unmount();
    await act(async () => vi.advanceTimersByTimeAsync(30 * MIN));
    expect(renewals()).toHaveLength(6);
  });

  it('renews with `renew: true` (the server refuses a lapsed claim then); a refusal reads the list at once and renews no more', async () => {
    // Review finding: the renewal was a plain claim, which the server grants to anybody once a claim lapsed.
    const a = await area();
    // Claimed half a minute in, so its renewals fall between the minute's reads.
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    mine = [claimed(7, 0)];
    await act(async () => a.qc.invalidateQueries({ queryKey: ['admin', 'requests'] }));
    await settle();
    expect(renewals()).toEqual(['POST /api/admin/requests/7/claim']);
    expect(bodies).toEqual(['{"renew":true}']);
    lapsedOnServer = true;
    // A feed event's read 2:10 after the renewal moves the minute's reads off the renewal's moment.
    await act(async () => vi.advanceTimersByTimeAsync(2 * MIN + 10_000));
    await act(async () => a.qc.invalidateQueries({ queryKey: ['admin', 'requests'] }));
    await act(async () => vi.advanceTimersByTimeAsync(3 * MIN - 11_000));
    const readsBefore = reads().length;
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    await settle();
    expect(renewals()).toHaveLength(2);
    // Read at once, not at the minute's read: the card says the claim lapsed now.
    expect(reads().length).toBeGreaterThan(readsBefore);
    await act(async () => vi.advanceTimersByTimeAsync(30 * MIN));
    expect(renewals()).toHaveLength(2);
    expect(new Set(bodies)).toEqual(new Set(['{"renew":true}']));
    await a.unmount();
  });

  it('renews as often with a browser clock 6 minutes ahead of the server\'s (no loop) and behind it (never too late)', async () => {
    // Review finding: renewals timed from the server's times on the browser's clock looped when it ran ahead.
    for (const skew of [-6 * MIN, 6 * MIN]) {
      serverSkewMs = skew;
      calls.length = 0;
      mine = [claimedAt(7, Date.now() + skew - 2 * MIN)];
      const a = await area();
      await act(async () => vi.advanceTimersByTimeAsync(20 * MIN));
      await settle();
      // Once at first sight, then every 5 minutes: 5 in 20 minutes, and the claim still stands.
      expect(renewals()).toHaveLength(5);
      expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeGreaterThan(Date.now() + skew);
      await a.unmount();
    }
  });

  it('leaves alone a claim that already lapsed (another operator may be on it) and stops renewing a claim no longer listed', async () => {
    mine = [claimed(8, 16 * MIN), claimed(9, 1 * MIN)];
    const a = await area();
    // The standing claim is renewed at first sight; the lapsed one is not listed, so not taken back.
    expect(renewals()).toEqual(['POST /api/admin/requests/9/claim']);
    // Request 9 is decided meanwhile: the next read no longer lists it.
    mine = [claimed(8, 17 * MIN)];
    await act(async () => vi.advanceTimersByTimeAsync(MY_CLAIMS_READ_MS));
    await act(async () => vi.advanceTimersByTimeAsync(10 * MIN));
    expect(renewals()).toEqual(['POST /api/admin/requests/9/claim']);
    await a.unmount();
  });

  it('a renewal that failed (a blip) is tried again within half a minute, not left to lapse', async () => {
    // Diff review: after one failed renewal the same list read every minute set no new timer, and the claim lapsed.
    mine = [claimed(7, 0)];
    const a = await area();
    expect(renewals()).toHaveLength(1);
    down = true;
    await act(async () => vi.advanceTimersByTimeAsync(5 * MIN));
    await settle();
    expect(renewals()).toHaveLength(2);
    down = false;
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    await settle();
    expect(renewals()).toHaveLength(3);
    await act(async () => vi.advanceTimersByTimeAsync(20 * MIN));
    expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeGreaterThan(Date.now());
    await a.unmount();
    const after = renewals().length;
    await act(async () => vi.advanceTimersByTimeAsync(30 * MIN));
    expect(renewals()).toHaveLength(after);
  });

  it('after a sleep longer than the timeout does not take back a claim that lapsed meanwhile (another operator may be on it)', async () => {
    // Review finding: paused timers keep the time they had left, so on wake the renewal came before the next
    // list read, and the server granted it: the operator silently held again a claim another one may have taken.
    const a = await area();
    await act(async () => vi.advanceTimersByTimeAsync(30_000));
    // The operator claims at 0:30; the queue's refresh lists it and the keeper renews it at first sight.
    mine = [claimed(7, 0)];
    await act(async () => a.qc.invalidateQueries({ queryKey: ['admin', 'requests'] }));
    await settle();
    expect(renewals()).toEqual(['POST /api/admin/requests/7/claim']);
    // Another page's refresh at 2:40 reads the list too: the minute's reads now come at 3:40, 4:40, 5:40…
    await act(async () => vi.advanceTimersByTimeAsync(2 * MIN + 10_000));
    await act(async () => a.qc.invalidateQueries({ queryKey: ['admin', 'requests'] }));
    await act(async () => vi.advanceTimersByTimeAsync(2 * MIN + 30_000));
    const before = calls.length;
    // The laptop sleeps half an hour at 5:10: the clock jumps, the timers keep the time they had left.
    vi.setSystemTime(Date.now() + 30 * MIN);
    expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeLessThan(Date.now());
    // The renewal comes due 20 seconds after waking, before the next read.
    await act(async () => vi.advanceTimersByTimeAsync(20_000));
    await settle();
    // No renewal, and the list read again at once (not at the next minute's read), so the card says the claim lapsed.
    expect(calls.slice(before)).toEqual(['GET /api/admin/requests?status=pending&claimed_by=3&page=1&per_page=100']);
    await act(async () => vi.advanceTimersByTimeAsync(30 * MIN));
    expect(renewals()).toHaveLength(1);
    await a.unmount();
  });

  it('after an outage longer than the timeout does not take back a claim that lapsed meanwhile', async () => {
    // Review finding: the 30-second retry of a failed renewal came back before the minute's list read.
    mine = [claimed(7, 0)];
    const a = await area();
    expect(renewals()).toHaveLength(1);
    outage = true;
    await act(async () => vi.advanceTimersByTimeAsync(15 * MIN + 10_000));
    await settle();
    // Tried again every half minute while the claim could still stand, then not at all.
    const tried = renewals().length;
    expect(tried).toBeGreaterThan(10);
    expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeLessThan(Date.now());
    // The service answers again at 15:10: the next retry would be due before the next list read.
    outage = false;
    const readsBefore = reads().length;
    await act(async () => vi.advanceTimersByTimeAsync(MY_CLAIMS_READ_MS));
    await settle();
    expect(reads().length).toBeGreaterThan(readsBefore);
    await act(async () => vi.advanceTimersByTimeAsync(20 * MIN));
    expect(renewals()).toHaveLength(tried);
    await a.unmount();
  });

  it('a claim the keeper stopped renewing near its timeout is renewed again if the next read still lists it', async () => {
    // The keeper stops with a tenth of the timeout to spare: a claim that still stands then is not let go.
    mine = [claimed(7, 0)];
    const a = await area();
    down = true;
    await act(async () => vi.advanceTimersByTimeAsync(14 * MIN));
    await settle();
    const tried = renewals().length;
    expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeGreaterThan(Date.now());
    down = false;
    await act(async () => vi.advanceTimersByTimeAsync(MY_CLAIMS_READ_MS));
    await settle();
    expect(renewals().length).toBeGreaterThan(tried);
    await act(async () => vi.advanceTimersByTimeAsync(20 * MIN));
    expect(Date.parse(mine[0]!.claim_lapses_at!)).toBeGreaterThan(Date.now());
    await a.unmount();
  });
});
