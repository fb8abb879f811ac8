import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, createTestDb, DB_KINDS, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { auditLedger } from './ledger.service';

const KK = 1_000_000;
const DAY_MS = 86_400_000;
type Player = Awaited<ReturnType<typeof createUser>>;
type Wallet = Awaited<ReturnType<typeof createWallet>>;
type Res = LightMyRequestResponse;
type Currency = 1 | 2;
type Method = 'GET' | 'POST' | 'DELETE';

/**
 * Different money paths racing on the same wallets, through the real routes, on both databases
 * (PostgreSQL with a pool of 40, so the racers really overlap inside it; PGlite, one session, where
 * they interleave between transactions). Which racer wins depends on the scheduler, so every check
 * here is one that must hold whatever the order: the ledger audit, no negative balance, value
 * conserved, every code in exactly one state with its escrow, every answer matching what the
 * database did, and every refusal a contract error, never a 5xx.
 */
describe.each(DB_KINDS)('different money paths racing on one wallet on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let vip: { price: bigint; days: number };
  let feeBp: { standard: number; vip: number };
  let operators: Player[];
  /** What the tests put in from outside (fund), per currency: the only value that came not through the routes. */
  const funded: Record<Currency, bigint> = { 1: 0n, 2: 0n };

  const db = () => t.db.kysely;
  // Each player calls from an address of their own, so one's per-address limits never refuse another.
  const ipOf = (p: Player) => `10.${Math.floor(p.id / 250) % 250}.${p.id % 250}.9`;
  const call = (method: Method, url: string, who: Player, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { ...who.auth, ...headers }, remoteAddress: ipOf(who), ...(payload ? { payload } : {}) });

  /**
   * Sends every racer: the favoured ones at once, the rest 2 to 8 ms later, staggered differently
   * each round. Sent all at once, the shortest path would win every time; favouring each kind of
   * racer in turn lets each of them go first while the rest still overlap it.
   */
  const race = <R extends { send: () => Promise<Res> }>(racers: R[], favoured: (r: R) => boolean, round: number) =>
    Promise.all(
      racers.map(async (r, i) => {
        if (!favoured(r)) await new Promise((resolve) => setTimeout(resolve, 2 + ((i * 7 + round * 3) % 7)));
        return { ...r, res: await r.send() };
      }),
    );

  const give = async (w: Wallet, amount: bigint, currency: Currency) => {
    await fund(db(), w, amount, currency);
    funded[currency] += amount;
  };
  const player = async (adena: bigint, coins: bigint) => {
    const p = await createUser(db());
    const w = await createWallet(db(), p.id, serverId);
    if (adena) await give(w, adena, 1);
    if (coins) await give(w, coins, 2);
    return { p, w };
  };
  const walletOf = async (walletId: number) => {
    const w = await db().selectFrom('wallets').select(['balance', 'balance_second']).where('id', '=', walletId).executeTakeFirstOrThrow();
    return { 1: BigInt(w.balance), 2: BigInt(w.balance_second) } as Record<Currency, bigint>;
  };
  /** Whole VIP periods bought since `t0` (each extends from the later of now and the current end), and what is left over. */
  const vipBoughtSince = async (userId: number, t0: number) => {
    const u = await db().selectFrom('users').select('vip_until').where('id', '=', userId).executeTakeFirstOrThrow();
    if (u.vip_until === null) return { periods: 0, drift: 0 };
    const span = new Date(u.vip_until).getTime() - t0;
    const periods = Math.round(span / (vip.days * DAY_MS));
    return { periods, drift: span - periods * vip.days * DAY_MS };
  };

  /**
   * A racer's answer: true for 200; otherwise it must be one of the contract's refusals for that
   * call (429 always is one) with its Russian message, never a 5xx.
   */
  const settle = (res: Res, what: string, refusals: number[] = [409]) => {
    const detail = `${what} → ${res.statusCode} ${res.body}`;
    if (res.statusCode === 200) return true;
    expect([...refusals, 429], detail).toContain(res.statusCode);
    expect(res.json().message, detail).toEqual(expect.any(String));
    if (res.statusCode === 429) expect(res.headers['retry-after'], detail).toBeDefined();
    return false;
  };
  /** A call that spends: refused only for want of money, 409 with low_cap. */
  const spent = (res: Res, what: string) => {
    const ok = settle(res, what);
    if (!ok && res.statusCode === 409) expect(res.json().low_cap, `${what}: ${res.body}`).toBe(true);
    return ok;
  };

  /** Value inside the service per currency, counted from the tables; the service's cash from the ledger. */
  const totals = async () => {
    const value: Record<Currency, bigint> = { 1: 0n, 2: 0n };
    const cash: Record<Currency, bigint> = { 1: 0n, 2: 0n };
    const netPaidIn: Record<Currency, bigint> = { 1: 0n, 2: 0n };
    for (const w of await db().selectFrom('wallets').select(['balance', 'balance_second']).execute()) {
      value[1] += BigInt(w.balance);
      value[2] += BigInt(w.balance_second);
    }
    // Escrow: the nominal of every active code.
    for (const c of await db().selectFrom('codes').select('nominal').where('status', '=', 'active').execute()) value[1] += BigInt(c.nominal);
    for (const r of await db().selectFrom('balance_requests').select(['type', 'status', 'currency_type', 'amount']).execute()) {
      // Payout: every pending withdrawal is held; completed requests are what crossed the cashier.
      if (r.type === 'output' && r.status === 'pending') value[r.currency_type] += BigInt(r.amount);
      if (r.status === 'completed') netPaidIn[r.currency_type] += r.type === 'input' ? BigInt(r.amount) : -BigInt(r.amount);
    }
    const sums = await db()
      .selectFrom('ledger_accounts as a')
      .innerJoin('ledger_entries as e', 'e.account_id', 'a.id')
      .select(['a.kind', 'a.currency_type', (eb) => eb.fn.sum<string>('e.amount').as('s')])
      .where('a.kind', 'in', ['fees', 'cash'])
      .groupBy(['a.kind', 'a.currency_type'])
      .execute();
    for (const s of sums) {
      if (s.kind === 'fees') value[s.currency_type] += BigInt(String(s.s));
      else cash[s.currency_type] += BigInt(String(s.s));
    }
    return { value, cash, netPaidIn, funded: { ...funded } };
  };
  type Totals = Awaited<ReturnType<typeof totals>>;

  /** Every code in exactly one state, its price its nominal plus fee, and each server's escrow its active codes. */
  const expectCodesConsistent = async () => {
    const codes = await db().selectFrom('codes').selectAll().execute();
    const marks = (vs: unknown[]) => (vs.every((v) => v !== null) ? 'set' : vs.every((v) => v === null) ? 'none' : 'partial');
    const expected = {
      active: { activation: 'none', cancellation: 'none' },
      activated: { activation: 'set', cancellation: 'none' },
      cancelled: { activation: 'none', cancellation: 'set' },
    };
    const open = new Map<number, bigint>();
    for (const c of codes) {
      expect(BigInt(c.price), `code ${c.id}: price`).toBe(BigInt(c.nominal) + BigInt(c.fee));
      const state = { activation: marks([c.activated_by, c.activated_at, c.activated_wallet_id]), cancellation: marks([c.cancelled_by, c.cancelled_at]) };
      expect(state, `code ${c.id} (${c.status})`).toEqual(expected[c.status]);
      if (c.status === 'active') open.set(c.gamesserver_id, (open.get(c.gamesserver_id) ?? 0n) + BigInt(c.nominal));
    }
    const escrow = await db()
      .selectFrom('ledger_accounts as a')
      .innerJoin('ledger_entries as e', 'e.account_id', 'a.id')
      .select(['a.gamesserver_id', (eb) => eb.fn.sum<string>('e.amount').as('s')])
      .where('a.kind', '=', 'escrow')
      .groupBy('a.gamesserver_id')
      .execute();
    const held = new Map(escrow.map((e) => [e.gamesserver_id, BigInt(String(e.s))]));
    for (const id of new Set([...open.keys(), ...held.keys()])) expect(held.get(id) ?? 0n, `escrow of server ${id}`).toBe(open.get(id) ?? 0n);
  };

  /** What must hold after any race: the audit, no negative balance, the codes, and value conserved since `before`. */
  const expectInvariants = async (before: Totals) => {
    expect(await auditLedger(db())).toMatchObject({ ok: true, problems: [] });
    const negative = await db()
      .selectFrom('wallets')
      .select(['id', 'balance', 'balance_second'])
      .where((eb) => eb.or([eb('balance', '<', 0n), eb('balance_second', '<', 0n)]))
      .execute();
    expect(negative).toEqual([]);
    await expectCodesConsistent();
    const after = await totals();
    for (const c of [1, 2] as const) {
      // Only the tests' funding and completed deposits bring value in; completed withdrawals take it out.
      const cameIn = after.funded[c] - before.funded[c] + after.netPaidIn[c] - before.netPaidIn[c];
      expect(after.value[c] - before.value[c], `currency ${c}: value inside the service`).toBe(cameIn);
      expect(after.cash[c] - before.cash[c], `currency ${c}: the service's cash`).toBe(-cameIn);
    }
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { db: await createTestDb(kind, 40) });
    serverId = await firstServerId(db());
    const s = await db()
      .selectFrom('gamesservers')
      .select(['vip_price', 'vip_period_days', 'code_fee_bp', 'vip_code_fee_bp'])
      .where('id', '=', serverId)
      .executeTakeFirstOrThrow();
    vip = { price: BigInt(s.vip_price), days: s.vip_period_days };
    feeBp = { standard: s.code_fee_bp, vip: s.vip_code_fee_bp };
    // Operators have TOTP on (createUser's default for admins), as ADMIN_REQUIRE_2FA asks; players have it off.
    operators = await Promise.all(Array.from({ length: 2 }, () => createUser(db(), { admin: true })));
  });
  afterAll(async () => {
    await t.close();
    await t.db.close();
  });

  it('withdrawals, code purchases, batches, VIP and operator decisions racing for one wallet never overdraw and move each answer once', async () => {
    const before = await totals();
    const [op] = operators as [Player];
    const favourites = ['withdraw', 'code', 'batch', 'vip', 'coins'] as const;
    for (const [round, favourite] of favourites.entries()) {
      const startAdena = 20n * BigInt(KK);
      const startCoins = 1000n;
      const { p, w } = await player(startAdena, startCoins);
      // Opened before the race and decided during it: a credit and a refund land among the debits.
      const deposit = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 5 * KK });
      const heldCoins = await call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 100 });
      expect([deposit.statusCode, heldCoins.statusCode]).toEqual([200, 200]);
      const heldId = heldCoins.json().success.id as number;

      type Kind = (typeof favourites)[number] | 'complete' | 'reject';
      const send: Record<Kind, () => Promise<Res>> = {
        withdraw: () => call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 4 * KK }),
        code: () => call('POST', '/api/show_code/', p, { gamesserver_id: serverId, nominal: 2 * KK, wallet_id: w.id }),
        batch: () => call('POST', '/api/pricekods/', p, { gamesserver_id: serverId, nominal: KK, count: 3 }),
        vip: () => call('POST', '/api/vip/', p, { months: 1, gamesserver_id: serverId }),
        coins: () => call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 250 }),
        complete: () => call('POST', `/api/admin/requests/${deposit.json().success.id}/complete`, op, {}),
        reject: () => call('POST', `/api/admin/requests/${heldId}/reject`, op, { reason: 'нет в игре' }),
      };
      // Asked for, at the demo servers' prices: adena 5 × 4кк + 5 × 2.06кк + 2 × 3.09кк against 25кк; coins 3 × 300 + 3 × 250 against 1000.
      const kinds: Kind[] = ['withdraw', 'code', 'vip', 'coins', 'withdraw', 'batch', 'code', 'complete', 'withdraw', 'vip', 'code', 'coins'];
      kinds.push('reject', 'batch', 'withdraw', 'code', 'vip', 'coins', 'withdraw', 'code');
      const t0 = Date.now();
      const answers = await race(
        kinds.map((k) => ({ k, send: send[k] })),
        (r) => r.k === favourite,
        round,
      );
      const of = (k: Kind) => answers.filter((a) => a.k === k).map((a) => a.res);

      // The operators' decisions compete with nobody: they must go through.
      expect(of('complete').map((r) => r.statusCode)).toEqual([200]);
      expect(of('reject').map((r) => r.statusCode)).toEqual([200]);
      const won = (k: Kind) => of(k).filter((r, i) => spent(r, `${k} #${i}`));

      // Each accepted answer is exactly one row, and each row an accepted answer.
      const requests = await db().selectFrom('balance_requests').selectAll().where('user_id', '=', p.id).where('type', '=', 'output').execute();
      const held = requests.filter((r) => r.id !== heldId);
      expect(held.filter((r) => r.currency_type === 1).map((r) => r.id)).toEqual(expect.arrayContaining(won('withdraw').map((r) => r.json().success.id)));
      expect(held.filter((r) => r.currency_type === 1)).toHaveLength(won('withdraw').length);
      expect(held.filter((r) => r.currency_type === 2).map((r) => r.id)).toEqual(expect.arrayContaining(won('coins').map((r) => r.json().success.id)));
      expect(held.filter((r) => r.currency_type === 2)).toHaveLength(won('coins').length);
      expect(held.map((r) => r.status)).toEqual(held.map(() => 'pending'));

      const codes = await db().selectFrom('codes').selectAll().where('user_id', '=', p.id).execute();
      const singles = won('code').map((r) => r.json() as { code_id: number; sert: string; summa: number });
      expect(codes.filter((c) => c.pricekod_id === null)).toHaveLength(singles.length);
      for (const s of singles) {
        const row = codes.find((c) => c.id === s.code_id);
        expect([row?.sert, Number(row?.price), row?.status, row?.pricekod_id]).toEqual([s.sert, s.summa, 'active', null]);
      }
      const batches = won('batch').map((r) => r.json() as { success: { id: number }; summa: number });
      const variants = await db().selectFrom('pricekods').select('id').where('user_id', '=', p.id).execute();
      expect(variants.map((v) => v.id).sort()).toEqual(batches.map((b) => b.success.id).sort());
      for (const b of batches) {
        const batch = codes.filter((c) => c.pricekod_id === b.success.id);
        expect(batch.map((c) => [Number(c.nominal), c.status])).toEqual(Array(3).fill([KK, 'active']));
        expect(batch.reduce((s, c) => s + Number(c.price), 0)).toBe(b.summa);
      }
      // A fee is the standard one or, once VIP is bought, the VIP one.
      for (const c of codes) expect([feeOf(BigInt(c.nominal), feeBp.standard), feeOf(BigInt(c.nominal), feeBp.vip)]).toContain(BigInt(c.fee));

      // VIP: each accepted purchase is one period, paid once.
      const vipWins = won('vip');
      const { periods, drift } = await vipBoughtSince(p.id, t0);
      expect(periods).toBe(vipWins.length);
      expect(Math.abs(drift)).toBeLessThan(60_000);
      for (const r of vipWins) expect(r.json().success).toMatchObject({ id: p.id, vip: true });

      // The wallet is its start and the credit, less exactly the accepted debits.
      const paidForCodes = codes.reduce((s, c) => s + BigInt(c.price), 0n);
      const out = (c: Currency) => held.filter((r) => r.currency_type === c).reduce((s, r) => s + BigInt(r.amount), 0n);
      expect(await walletOf(w.id)).toEqual({
        1: startAdena + 5n * BigInt(KK) - out(1) - paidForCodes,
        2: startCoins - out(2) - vip.price * BigInt(periods),
      });
    }
    await expectInvariants(before);
  });

  it("the owner's cancel, operators' cancels, a batch delete and another player's activation of the same codes: each code moves once", async () => {
    const before = await totals();
    const [op1, op2] = operators as [Player, Player];
    const cancelledBy = (seller: Player) => ({ owner: seller.id, op1: op1.id, op2: op2.id });
    const favourites = ['owner', 'activate', 'op1', 'op2', 'delete'] as const;
    for (const [round, favourite] of favourites.entries()) {
      const { p: seller, w } = await player(100n * BigInt(KK), 0n);
      const buyer = await createUser(db());
      // Signed in already, as a buyer usually is; every other round the activation makes their wallet in its own transaction.
      expect((await call('GET', '/api/user', buyer)).statusCode).toBe(200);
      if (round % 2 === 1) await createWallet(db(), buyer.id, serverId);
      for (let i = 1; i <= 4; i++) {
        expect((await call('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: i * KK, wallet_id: w.id })).statusCode).toBe(200);
      }
      const batch = await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: 2 * KK, count: 3 });
      expect(batch.statusCode).toBe(200);
      const batchId = batch.json().success.id as number;
      const issued = await db().selectFrom('codes').selectAll().where('user_id', '=', seller.id).orderBy('id').execute();
      expect(issued).toHaveLength(7);
      const sellerStart = (await walletOf(w.id))[1];

      type Racer = { k: (typeof favourites)[number]; codeId: number | null; send: () => Promise<Res> };
      const racers: Racer[] = issued.flatMap((c) => [
        { k: 'owner' as const, codeId: c.id, send: () => call('POST', `/api/codes/${c.id}/cancel`, seller) },
        { k: 'op1' as const, codeId: c.id, send: () => call('POST', `/api/admin/codes/${c.id}/cancel`, op1, { reason: 'жалоба' }) },
        { k: 'activate' as const, codeId: c.id, send: () => call('POST', '/api/activation_code/', buyer, { sert: c.sert }) },
        { k: 'op2' as const, codeId: c.id, send: () => call('POST', `/api/admin/codes/${c.id}/cancel`, op2, { reason: 'дубль' }) },
      ]);
      racers.splice(5, 0, { k: 'delete', codeId: null, send: () => call('DELETE', `/api/pricekods/${batchId}`, seller) });
      const answers = await race(racers, (r) => r.k === favourite, round);
      for (const a of answers) settle(a.res, `${a.k} of code ${a.codeId}`);
      const del = answers.find((a) => a.k === 'delete')!.res;

      const codes = await db().selectFrom('codes').selectAll().where('user_id', '=', seller.id).execute();
      let refundedByAnswers = del.statusCode === 200 ? (del.json().summa as number) : 0;
      let deleteShare = 0;
      for (const c of codes) {
        const what = `code ${c.id} (${c.status})`;
        const mine = answers.filter((a) => a.codeId === c.id);
        const won = mine.filter((a) => a.res.statusCode === 200);
        // Every code had cancels and an activation racing for it: it left 'active', and one of them says so.
        expect(c.status, what).not.toBe('active');
        if (c.status === 'activated') {
          expect(won.map((a) => a.k), what).toEqual(['activate']);
          expect(c.activated_by, what).toBe(buyer.id);
          expect(won[0]!.res.json().success, what).toMatchObject({ code_id: c.id, nominal: Number(c.nominal), status: 'activated' });
        } else if (won.length === 0) {
          // No cancel of its own answered 200: the batch's delete took it.
          expect([c.pricekod_id, c.cancelled_by, del.statusCode], what).toEqual([batchId, seller.id, 200]);
          deleteShare += Number(c.price);
        } else {
          expect(won.map((a) => a.k), what).toHaveLength(1);
          const k = won[0]!.k as 'owner' | 'op1' | 'op2';
          expect(c.cancelled_by, what).toBe(cancelledBy(seller)[k]);
          expect(won[0]!.res.json().summa, what).toBe(Number(c.price));
          if (k !== 'owner') expect(won[0]!.res.json().success, what).toMatchObject({ id: c.id, status: 'cancelled', cancelled_by: cancelledBy(seller)[k] });
          refundedByAnswers += Number(c.price);
        }
        // A refused activation met the code's final state and told its issuer, once.
        const refused = mine.filter((a) => a.k === 'activate' && a.res.statusCode !== 200);
        for (const r of refused) expect([r.res.statusCode, r.res.json().status], what).toEqual([409, c.status]);
        const incidents = await db().selectFrom('code_incidents').selectAll().where('code_id', '=', c.id).execute();
        expect(
          incidents.map((i) => [i.user_id, i.attempted_by, i.code_status]),
          what,
        ).toEqual(refused.map(() => [seller.id, buyer.id, 'cancelled']));
        // Refused cancels met it already gone, and said in which state.
        for (const a of mine.filter((a) => a.k !== 'activate' && a.res.statusCode !== 200)) expect(a.res.json().status, `${what}: ${a.k}`).toBe(c.status);
        // An operator's cancel is audited exactly when it happened.
        const audited = await db().selectFrom('admin_audit_log').select('admin_id').where('entity_type', '=', 'code').where('entity_id', '=', String(c.id)).execute();
        expect(
          audited.map((a) => a.admin_id),
          what,
        ).toEqual(c.status === 'cancelled' && c.cancelled_by !== seller.id ? [c.cancelled_by] : []);
      }
      // The delete answered the price of exactly the codes it cancelled; every refund answered was paid, once.
      expect(del.statusCode === 200 ? del.json().summa : 0).toBe(deleteShare);
      const cancelled = codes.filter((c) => c.status === 'cancelled');
      const activated = codes.filter((c) => c.status === 'activated');
      expect(refundedByAnswers).toBe(cancelled.reduce((s, c) => s + Number(c.price), 0));
      expect((await walletOf(w.id))[1]).toBe(sellerStart + BigInt(refundedByAnswers));
      const buyerWallet = await db().selectFrom('wallets').select('balance').where('user_id', '=', buyer.id).executeTakeFirst();
      expect(BigInt(buyerWallet?.balance ?? 0n)).toBe(activated.reduce((s, c) => s + BigInt(c.nominal), 0n));
    }
    await expectInvariants(before);
  });

  it('VIP bought twice at once, and retried at once under one Idempotency-Key, is paid once per period it grants', async () => {
    const before = await totals();
    // Coins for both purchases, then for only one of them.
    for (const coins of [2n * vip.price, vip.price + vip.price / 2n]) {
      const { p, w } = await player(0n, coins);
      const t0 = Date.now();
      const answers = await Promise.all([1, 2].map(() => call('POST', '/api/vip/', p, { months: 1 })));
      const wins = answers.filter((r, i) => spent(r, `vip #${i}`));
      const { periods, drift } = await vipBoughtSince(p.id, t0);
      expect(periods).toBe(wins.length);
      expect(Math.abs(drift)).toBeLessThan(60_000);
      expect((await walletOf(w.id))[2]).toBe(coins - vip.price * BigInt(periods));
      // The purchase that committed last answered the VIP end the user has now.
      const until = await db().selectFrom('users').select('vip_until').where('id', '=', p.id).executeTakeFirstOrThrow();
      if (wins.length > 0) expect(Math.max(...wins.map((r) => Date.parse(r.json().success.vip_until)))).toBe(new Date(until.vip_until!).getTime());
    }

    // No server named: the first server whose coins cover the price pays; coins on two servers, two purchases at once.
    // Each purchase locks the wallet it weighs, so the second sees the first server's coins spent and the
    // second server pays: both succeed (they used to both pick the first server, and the second was refused).
    const [second] = await db()
      .selectFrom('gamesservers')
      .select(['id', 'vip_price', 'vip_period_days'])
      .where('id', '!=', serverId)
      .where('active', '=', true)
      .orderBy('sort_order')
      .limit(1)
      .execute();
    expect(second!.vip_period_days).toBe(vip.days);
    for (let round = 0; round < 3; round++) {
      const { p, w } = await player(0n, vip.price);
      const w2 = await createWallet(db(), p.id, second!.id);
      await give(w2, BigInt(second!.vip_price), 2);
      const t0 = Date.now();
      const answers = await Promise.all([1, 2].map(() => call('POST', '/api/vip/', p, { months: 1 })));
      const wins = answers.filter((r, i) => spent(r, `vip on any server #${i}`));
      expect(wins).toHaveLength(2);
      const { periods, drift } = await vipBoughtSince(p.id, t0);
      expect(periods).toBe(wins.length);
      expect(Math.abs(drift)).toBeLessThan(60_000);
      // Each server paid a whole price or nothing, and together exactly the periods granted.
      const paid = [vip.price - (await walletOf(w.id))[2], BigInt(second!.vip_price) - (await walletOf(w2.id))[2]];
      expect([0n, vip.price]).toContain(paid[0]);
      expect([0n, BigInt(second!.vip_price)]).toContain(paid[1]);
      expect(paid.filter((x) => x > 0n)).toHaveLength(periods);
    }

    // One key sent four times at once (a double click and the client's retries), beside one unkeyed purchase.
    const { p, w } = await player(0n, 3n * vip.price);
    const t0 = Date.now();
    const keyed = (months: number, key: string) => call('POST', '/api/vip/', p, { months }, { 'idempotency-key': key });
    const [plain, ...retries] = await Promise.all([call('POST', '/api/vip/', p, { months: 1 }), ...[1, 2, 3, 4].map(() => keyed(1, 'vip-once'))]);
    const plainWon = spent(plain!, 'unkeyed vip');
    const keyedWins = retries.filter((r, i) => settle(r, `keyed vip #${i}`));
    // Every 200 under the key is the same first answer, and the key bought at most one period.
    for (const r of keyedWins) expect(r.json()).toEqual(keyedWins[0]!.json());
    const { periods, drift } = await vipBoughtSince(p.id, t0);
    expect(periods).toBe((keyedWins.length > 0 ? 1 : 0) + (plainWon ? 1 : 0));
    expect(Math.abs(drift)).toBeLessThan(60_000);
    expect((await walletOf(w.id))[2]).toBe(3n * vip.price - vip.price * BigInt(periods));
    // The key with another body is refused and moves nothing.
    expect(settle(await keyed(2, 'vip-once'), 'reused key')).toBe(false);
    expect((await walletOf(w.id))[2]).toBe(3n * vip.price - vip.price * BigInt(periods));
    await expectInvariants(before);
  });

  it("an operator's claim, complete and reject racing the player's cancel decide each deposit and withdrawal once", async () => {
    const before = await totals();
    const [op1, op2] = operators as [Player, Player];
    type Tag = 'claim op1' | 'complete op1' | 'complete op2' | 'reject op1' | 'reject op2' | 'cancel';
    // claimed: op1 claims before the race. The player's cancel is sent twice under one key: a double click.
    const lineups = {
      open: ['complete op1', 'cancel', 'reject op2', 'cancel'],
      claimed: ['cancel', 'complete op1', 'reject op2', 'reject op1', 'complete op2', 'cancel'],
      'claim-races': ['claim op1', 'cancel', 'complete op1', 'reject op2', 'cancel'],
    } satisfies Record<string, Tag[]>;
    const cases = (Object.keys(lineups) as (keyof typeof lineups)[]).flatMap((mode) =>
      (['input', 'output'] as const).flatMap((type) =>
        ([1, 2] as const).flatMap((currency) => [...new Set<Tag>(lineups[mode])].map((favourite, round) => ({ mode, type, currency, favourite, round }))),
      ),
    );
    for (const { mode, type, currency, favourite, round } of cases) {
      const what = `${mode} ${type} in currency ${currency}, ${favourite} first`;
      const start = currency === 1 ? 10n * BigInt(KK) : 1000n;
      const amount = currency === 1 ? 4 * KK : 400;
      const { p, w } = await player(currency === 1 ? start : 0n, currency === 2 ? start : 0n);
      const path = `/api/${type === 'input' ? 'up' : 'down'}_balance_user${currency === 2 ? '_second_currency' : ''}/`;
      const opened = await call('POST', path, p, { gamesserver_id: serverId, amount });
      expect(opened.statusCode, what).toBe(200);
      const id = opened.json().success.id as number;
      const claim = () => call('POST', `/api/admin/requests/${id}/claim`, op1, {});
      if (mode === 'claimed') expect((await claim()).statusCode, what).toBe(200);

      const racer = (tag: Tag) => {
        const [k, who] = tag.split(' ') as ['claim' | 'complete' | 'reject' | 'cancel', 'op1' | 'op2' | undefined];
        const op = who === 'op1' ? op1 : who === 'op2' ? op2 : null;
        const send = {
          claim,
          complete: () => call('POST', `/api/admin/requests/${id}/complete`, op!, {}),
          reject: () => call('POST', `/api/admin/requests/${id}/reject`, op!, { reason: 'игрок не пришёл' }),
          cancel: () => call('POST', '/api/delete_request/', p, { id }, { 'idempotency-key': `cancel-${id}` }),
        }[k];
        return { tag, k, op, send };
      };
      const answers = await race(lineups[mode].map(racer), (r) => r.tag === favourite, round);

      const row = await db().selectFrom('balance_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      // Every lineup holds someone who may decide it: it ended, once.
      expect(row.status, what).not.toBe('pending');
      for (const a of answers) {
        if (settle(a.res, `${what}: ${a.tag}`)) continue;
        const body = a.res.json();
        // Refused for the state it met: already ended (saying how), or op1's claim.
        if (body.status !== undefined) expect(body.status, `${what}: ${a.tag}`).toBe(row.status);
        if (body.claimed_by !== undefined) expect(body.claimed_by.id, `${what}: ${a.tag}`).toBe(op1.id);
      }
      const ok = (k: string) => answers.filter((a) => a.k === k && a.res.statusCode === 200);
      // The decision that happened is the one that answered 200, by the operator the row names.
      expect(
        ok('complete').map((a) => a.op!.id),
        what,
      ).toEqual(row.status === 'completed' ? [row.processed_by] : []);
      expect(
        ok('reject').map((a) => a.op!.id),
        what,
      ).toEqual(row.status === 'rejected' ? [row.processed_by] : []);
      // Both cancels under one key share the outcome: both 200 (the second a replay) or both refused.
      const cancelled = row.status === 'cancelled';
      expect(
        answers.filter((a) => a.k === 'cancel').map((a) => a.res.statusCode === 200),
        what,
      ).toEqual([cancelled, cancelled]);
      if (cancelled) expect(row.processed_by, what).toBeNull();
      // A standing claim lets only its operator decide, and the player no longer cancel.
      const claimed = mode === 'claimed' || ok('claim').length === 1;
      if (claimed) expect([row.status === 'cancelled', row.processed_by, row.claimed_by], what).toEqual([false, op1.id, op1.id]);

      // The money moved once, as the decision says.
      const credited = type === 'input' && row.status === 'completed' ? BigInt(amount) : 0n;
      const paidOut = type === 'output' && row.status === 'completed' ? BigInt(amount) : 0n;
      expect((await walletOf(w.id))[currency], what).toBe(start + credited - paidOut);
      // Each claim and decision is audited once, and only when it happened.
      const audited = await db()
        .selectFrom('admin_audit_log')
        .select(['action', 'admin_id'])
        .where('entity_type', '=', 'balance_request')
        .where('entity_id', '=', String(id))
        .orderBy('id')
        .execute();
      const decision = { completed: 'request.complete', rejected: 'request.reject' }[row.status as string];
      expect(
        audited.map((a) => [a.action, a.admin_id]),
        what,
      ).toEqual([...(claimed ? [['request.claim', op1.id]] : []), ...(decision ? [[decision, row.processed_by]] : [])]);
    }
    await expectInvariants(before);
  });
});
