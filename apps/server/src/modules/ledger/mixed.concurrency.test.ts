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
type Method = 'POST' | 'PUT' | 'DELETE';

/**
 * Different money paths racing on the same wallets, through the real routes, on both databases
 * (PostgreSQL with a pool of 40, so the racers really overlap; PGlite, one session, where they
 * interleave between transactions). Which racer wins depends on the scheduler, so every check
 * here is an invariant that must hold whatever the order: the ledger audit, no negative balance,
 * value conserved, every code in exactly one state, every answer matching what the database did,
 * and every refusal a contract error, never a 5xx.
 */
describe.each(DB_KINDS)('different money paths racing on one wallet on %s', (kind) => {
  let t: TestApp;
  let serverId: number;
  let vip: { price: bigint; days: number };
  let operators: Player[];
  /** What the tests put in from outside (fund), per currency: the only value not from the routes. */
  const funded: Record<Currency, bigint> = { 1: 0n, 2: 0n };

  const db = () => t.db.kysely;
  // Each player calls from an address of their own, so the per-address limits of one never refuse another.
  const ipOf = (p: Player) => `10.${Math.floor(p.id / 250) % 250}.${p.id % 250}.9`;
  const call = (method: Method, url: string, who: Player, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { ...who.auth, ...headers }, remoteAddress: ipOf(who), ...(payload ? { payload } : {}) });
  /**
   * Starts `send` after `ms` milliseconds: sent all at once, the shortest path would win every
   * time; a few milliseconds of stagger, different each round, lets each kind of racer go first.
   */
  const after = <T>(ms: number, send: () => Promise<T>) => (ms === 0 ? send() : new Promise<void>((resolve) => setTimeout(resolve, ms)).then(send));
  const stagger = (round: number, i: number) => (i * 7 + round * 3) % 5;
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
    return { 1: w.balance, 2: w.balance_second } as Record<Currency, bigint>;
  };
  /** Whole VIP periods bought since `t0` (VIP extends from the later of now and its end), and what is left over. */
  const vipBoughtSince = async (userId: number, t0: number) => {
    const u = await db().selectFrom('users').select('vip_until').where('id', '=', userId).executeTakeFirstOrThrow();
    if (u.vip_until === null) return { periods: 0, drift: 0 };
    const span = new Date(u.vip_until).getTime() - t0;
    const periods = Math.round(span / (vip.days * DAY_MS));
    return { periods, drift: span - periods * vip.days * DAY_MS };
  };

  /**
   * A racer's answer: true for 200; otherwise it must be one of the contract's refusals for that
   * call (429 is always one) with its Russian message, never a 5xx.
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

  /** What must hold after any race: the audit, no negative balance, codes, and value conserved since `before`. */
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
      // Only the tests' funding and the operators' completed deposits bring value in; completed withdrawals take it out.
      const cameIn = after.funded[c] - before.funded[c] + after.netPaidIn[c] - before.netPaidIn[c];
      expect(after.value[c] - before.value[c], `currency ${c}: value inside the service`).toBe(cameIn);
      expect(after.cash[c] - before.cash[c], `currency ${c}: the service's cash`).toBe(-cameIn);
    }
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { db: await createTestDb(kind, 40) });
    serverId = await firstServerId(db());
    const s = await db().selectFrom('gamesservers').select(['vip_price', 'vip_period_days']).where('id', '=', serverId).executeTakeFirstOrThrow();
    vip = { price: BigInt(s.vip_price), days: s.vip_period_days };
    // Operators have TOTP on (createUser's default for admins), as ADMIN_REQUIRE_2FA asks; players have it off.
    operators = await Promise.all(Array.from({ length: 3 }, () => createUser(db(), { admin: true })));
  });
  afterAll(async () => {
    await t.close();
    await t.db.close();
  });

  it('withdrawals, code purchases, batches, VIP and operator decisions racing for one wallet never overdraw and move each answer once', async () => {
    const before = await totals();
    const [op] = operators;
    for (let round = 0; round < 3; round++) {
      const startAdena = 20n * BigInt(KK);
      const startCoins = 1000n;
      const { p, w } = await player(startAdena, startCoins);
      // Opened before the race and decided during it: a credit and a refund land among the debits.
      const deposit = await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 5 * KK });
      const heldCoins = await call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 100 });
      expect([deposit.statusCode, heldCoins.statusCode]).toEqual([200, 200]);

      type Kind = 'withdraw' | 'code' | 'batch' | 'vip' | 'coins' | 'complete' | 'reject';
      const send: Record<Kind, () => Promise<Res>> = {
        withdraw: () => call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 4 * KK }),
        code: () => call('POST', '/api/show_code/', p, { gamesserver_id: serverId, nominal: 2 * KK, wallet_id: w.id }),
        batch: () => call('POST', '/api/pricekods/', p, { gamesserver_id: serverId, nominal: KK, count: 3 }),
        vip: () => call('POST', '/api/vip/', p, { months: 1, gamesserver_id: serverId }),
        coins: () => call('POST', '/api/down_balance_user_second_currency/', p, { gamesserver_id: serverId, amount: 250 }),
        complete: () => call('POST', `/api/admin/requests/${deposit.json().success.id}/complete`, op!, {}),
        reject: () => call('POST', `/api/admin/requests/${heldCoins.json().success.id}/reject`, op!, { reason: 'нет в игре' }),
      };
      const kinds: Kind[] = ['withdraw', 'code', 'vip', 'coins', 'withdraw', 'batch', 'code', 'complete', 'withdraw', 'vip', 'code', 'coins'];
      kinds.push('reject', 'batch', 'withdraw', 'code', 'vip', 'coins', 'withdraw', 'code');
      // Another order each round.
      const order = [...kinds.slice(round * 7), ...kinds.slice(0, round * 7)];
      const t0 = Date.now();
      const answers = await Promise.all(order.map(async (k, i) => ({ k, res: await after(stagger(round, i), send[k]) })));
      const of = (k: Kind) => answers.filter((a) => a.k === k).map((a) => a.res);

      // The operators' decisions compete with nobody: they must go through.
      expect(of('complete').map((r) => r.statusCode)).toEqual([200]);
      expect(of('reject').map((r) => r.statusCode)).toEqual([200]);
      const won = (k: Kind) => of(k).filter((r, i) => spent(r, `${k} #${i}`));

      // Each accepted answer is exactly one row, and each row an accepted answer.
      const requests = await db().selectFrom('balance_requests').selectAll().where('user_id', '=', p.id).where('type', '=', 'output').execute();
      const withdrawals = won('withdraw').map((r) => r.json().success.id as number);
      const coinWithdrawals = won('coins').map((r) => r.json().success.id as number);
      expect(requests.filter((r) => r.currency_type === 1).map((r) => r.id).sort()).toEqual([...withdrawals].sort());
      expect(requests.filter((r) => r.currency_type === 2 && r.status === 'pending').map((r) => r.id).sort()).toEqual([...coinWithdrawals].sort());
      for (const r of requests.filter((r) => r.id !== heldCoins.json().success.id)) expect(r.status).toBe('pending');

      const codes = await db().selectFrom('codes').selectAll().where('user_id', '=', p.id).execute();
      const singles = won('code').map((r) => r.json() as { code_id: number; sert: string; summa: number });
      expect(codes.filter((c) => c.pricekod_id === null).map((c) => c.id).sort()).toEqual(singles.map((c) => c.code_id).sort());
      for (const s of singles) {
        const row = codes.find((c) => c.id === s.code_id)!;
        expect([row.sert, Number(row.price), row.status]).toEqual([s.sert, s.summa, 'active']);
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
      for (const c of codes) expect([feeOf(c.nominal, 300), feeOf(c.nominal, 100)]).toContain(BigInt(c.fee));

      console.log(kind, 'S1', round, Object.fromEntries((['withdraw','code','batch','vip','coins'] as Kind[]).map((k) => [k, of(k).map((r) => r.statusCode).join(',')])));
      // VIP: each accepted purchase is one period, paid once.
      const vipWins = won('vip');
      const { periods, drift } = await vipBoughtSince(p.id, t0);
      expect(periods).toBe(vipWins.length);
      expect(Math.abs(drift)).toBeLessThan(60_000);
      for (const r of vipWins) expect(r.json().success).toMatchObject({ id: p.id, vip: true });

      // The wallet is exactly its start, the credit, less every accepted debit.
      const paidForCodes = codes.reduce((s, c) => s + BigInt(c.price), 0n);
      const withdrawn = requests.filter((r) => r.currency_type === 1).reduce((s, r) => s + BigInt(r.amount), 0n);
      const coinsOut = requests.filter((r) => r.currency_type === 2 && r.status === 'pending').reduce((s, r) => s + BigInt(r.amount), 0n);
      expect(await walletOf(w.id)).toEqual({
        1: startAdena + 5n * BigInt(KK) - withdrawn - paidForCodes,
        2: startCoins - coinsOut - vip.price * BigInt(periods),
      });
    }
    await expectInvariants(before);
  });

  it("the owner's cancel, operators' cancels, a batch delete and another player's activation of the same codes: each code moves once", async () => {
    const before = await totals();
    const [op1, op2] = operators;
    for (let round = 0; round < 3; round++) {
      const { p: seller, w } = await player(100n * BigInt(KK), 0n);
      const buyer = await createUser(db());
      const singles: number[] = [];
      for (let i = 1; i <= 4; i++) {
        const res = await call('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal: i * KK, wallet_id: w.id });
        expect(res.statusCode).toBe(200);
        singles.push(res.json().code_id);
      }
      const batch = await call('POST', '/api/pricekods/', seller, { gamesserver_id: serverId, nominal: 2 * KK, count: 3 });
      expect(batch.statusCode).toBe(200);
      const batchId = batch.json().success.id as number;
      const issued = await db().selectFrom('codes').selectAll().where('user_id', '=', seller.id).orderBy('id').execute();
      expect(issued).toHaveLength(7);
      const sellerStart = (await walletOf(w.id))[1];

      type Racer = { k: 'owner' | 'op1' | 'op2' | 'activate'; codeId: number; res: Res } | { k: 'delete'; codeId: null; res: Res };
      const racers = issued.flatMap((c, i) => {
        const list = [
          { k: 'owner' as const, send: () => call('POST', `/api/codes/${c.id}/cancel`, seller) },
          { k: 'op1' as const, send: () => call('POST', `/api/admin/codes/${c.id}/cancel`, op1!, { reason: 'жалоба' }) },
          { k: 'activate' as const, send: () => call('POST', '/api/activation_code/', buyer, { sert: c.sert }) },
          { k: 'op2' as const, send: () => call('POST', `/api/admin/codes/${c.id}/cancel`, op2!, { reason: 'дубль' }) },
        ];
        // Rotate who is sent first, per code and per round.
        const start = (i + round) % list.length;
        return [...list.slice(start), ...list.slice(0, start)].map((r) => ({ ...r, codeId: c.id }));
      });
      const answers: Racer[] = await Promise.all([
        ...racers.map(async (r, i) => ({ k: r.k, codeId: r.codeId, res: await after(stagger(round, i), r.send) })),
        after(stagger(round, racers.length), () => call('DELETE', `/api/pricekods/${batchId}`, seller)).then((res) => ({ k: 'delete' as const, codeId: null, res })),
      ]);
      for (const a of answers) settle(a.res, `${a.k} of code ${a.codeId}`, a.k === 'delete' ? [404, 409] : [409]);
      const del = answers.find((a) => a.k === 'delete')!.res;

      const codes = await db().selectFrom('codes').selectAll().where('user_id', '=', seller.id).execute();
      let refundedByAnswers = del.statusCode === 200 ? (del.json().summa as number) : 0;
      let deleteShare = 0;
      for (const c of codes) {
        const mine = answers.filter((a) => a.codeId === c.id);
        const ok = (k: string) => mine.filter((a) => a.k === k && a.res.statusCode === 200).map((a) => a.res);
        const cancelledBy = { owner: seller.id, op1: op1!.id, op2: op2!.id } as const;
        // Every code had a cancel or an activation racing for it: it left 'active', once.
        expect(c.status, `code ${c.id}`).not.toBe('active');
        const claims = mine.filter((a) => a.res.statusCode === 200);
        if (c.status === 'activated') {
          expect(claims.map((a) => a.k), `code ${c.id}`).toEqual(['activate']);
          expect(c.activated_by).toBe(buyer.id);
          expect(claims[0]!.res.json().success).toMatchObject({ code_id: c.id, nominal: Number(c.nominal), status: 'activated' });
        } else {
          // Cancelled: by the owner (their cancel, or the batch's delete) or by the operator whose cancel answered 200.
          const byRoute = claims.map((a) => a.k);
          expect(byRoute.length, `code ${c.id}: ${byRoute}`).toBeLessThanOrEqual(1);
          if (byRoute.length === 0) {
            expect(c.pricekod_id, `code ${c.id} cancelled with no answer`).toBe(batchId);
            expect(c.cancelled_by).toBe(seller.id);
            expect(del.statusCode).toBe(200);
            deleteShare += Number(c.price);
          } else {
            const k = byRoute[0] as 'owner' | 'op1' | 'op2';
            expect(c.cancelled_by, `code ${c.id}`).toBe(cancelledBy[k]);
            expect(claims[0]!.res.json().summa).toBe(Number(c.price));
            if (k !== 'owner') expect(claims[0]!.res.json().success).toMatchObject({ id: c.id, status: 'cancelled', cancelled_by: cancelledBy[k] });
            refundedByAnswers += Number(c.price);
          }
          expect(ok('activate')).toEqual([]);
        }
        // A refused activation met a cancelled code and told its issuer, once.
        const refused = mine.filter((a) => a.k === 'activate' && a.res.statusCode === 409);
        for (const r of refused) expect(r.res.json().status).toBe('cancelled');
        const incidents = await db().selectFrom('code_incidents').selectAll().where('code_id', '=', c.id).execute();
        expect(incidents.map((i) => [i.user_id, i.attempted_by, i.code_status])).toEqual(refused.map(() => [seller.id, buyer.id, 'cancelled']));
        // An operator's cancel is audited exactly when it happened.
        const audited = await db().selectFrom('admin_audit_log').select('admin_id').where('entity_type', '=', 'code').where('entity_id', '=', String(c.id)).execute();
        expect(audited.map((a) => a.admin_id)).toEqual(c.status === 'cancelled' && c.cancelled_by !== seller.id ? [c.cancelled_by] : []);
      }
      console.log(kind, 'S2', round, codes.map((c) => `${c.id}:${c.status}:${c.cancelled_by===seller.id?'owner':c.cancelled_by===op1!.id?'op1':c.cancelled_by===op2!.id?'op2':c.activated_by?'buyer':'?'}`).join(' '), 'del', del.statusCode, del.json().summa);
      // The delete's answer is the sum of the codes it cancelled; every refund answered was paid, once.
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
      console.log(kind, 'S3', coins, answers.map((r) => r.statusCode));
      const { periods, drift } = await vipBoughtSince(p.id, t0);
      expect(periods).toBe(wins.length);
      expect(Math.abs(drift)).toBeLessThan(60_000);
      expect((await walletOf(w.id))[2]).toBe(coins - vip.price * BigInt(periods));
      // The last purchase to commit answered the VIP end the user has now.
      const until = await db().selectFrom('users').select('vip_until').where('id', '=', p.id).executeTakeFirstOrThrow();
      if (wins.length > 0) expect(Math.max(...wins.map((r) => Date.parse(r.json().success.vip_until)))).toBe(new Date(until.vip_until!).getTime());
    }

    // One key, sent four times at once (a double click and the client's retries), beside one unkeyed purchase.
    const { p, w } = await player(0n, 3n * vip.price);
    const t0 = Date.now();
    const keyed = (months: number, key: string) => call('POST', '/api/vip/', p, { months }, { 'idempotency-key': key });
    const [plain, ...retries] = await Promise.all([call('POST', '/api/vip/', p, { months: 1 }), ...[1, 2, 3, 4].map(() => keyed(1, 'vip-once'))]);
    const plainWon = spent(plain!, 'unkeyed vip');
    console.log(kind, 'S3key', plain!.statusCode, retries.map((r) => r.statusCode));
    const keyedWins = retries.filter((r, i) => settle(r, `keyed vip #${i}`));
    // Every 200 under the key is the same first answer; the key bought at most one period.
    for (const r of keyedWins) expect(r.json()).toEqual(keyedWins[0]!.json());
    const { periods, drift } = await vipBoughtSince(p.id, t0);
    expect(periods).toBe((keyedWins.length > 0 ? 1 : 0) + (plainWon ? 1 : 0));
    expect(Math.abs(drift)).toBeLessThan(60_000);
    expect((await walletOf(w.id))[2]).toBe(3n * vip.price - vip.price * BigInt(periods));
    // The key with another body is refused and moves nothing.
    const reused = await keyed(2, 'vip-once');
    expect(settle(reused, 'reused key')).toBe(false);
    expect((await walletOf(w.id))[2]).toBe(3n * vip.price - vip.price * BigInt(periods));
    await expectInvariants(before);
  });

  it("an operator's claim, complete and reject racing the player's cancel decide each deposit and withdrawal once", async () => {
    const before = await totals();
    const [op1, op2] = operators as [Player, Player];
    const modes = ['open', 'claimed', 'claim-races'] as const;
    const cases = modes.flatMap((mode) =>
      (['input', 'output'] as const).flatMap((type) => ([1, 2] as const).flatMap((currency) => [0, 1, 2].map((round) => ({ mode, type, currency, round })))),
    );
    for (const { mode, type, currency, round } of cases) {
          const what = `${mode} ${type} in currency ${currency}, round ${round}`;
          const start = currency === 1 ? 10n * BigInt(KK) : 1000n;
          const amount = currency === 1 ? 4 * KK : 400;
          const { p, w } = await player(currency === 1 ? start : 0n, currency === 2 ? start : 0n);
          const path = `/api/${type === 'input' ? 'up' : 'down'}_balance_user${currency === 2 ? '_second_currency' : ''}/`;
          const opened = await call('POST', path, p, { gamesserver_id: serverId, amount });
          expect(opened.statusCode, what).toBe(200);
          const id = opened.json().success.id as number;
          const claim = () => call('POST', `/api/admin/requests/${id}/claim`, op1, {});
          if (mode === 'claimed') expect((await claim()).statusCode, what).toBe(200);

          const complete = (op: Player) => ({ k: 'complete', op, send: () => call('POST', `/api/admin/requests/${id}/complete`, op, {}) });
          const reject = (op: Player) => ({ k: 'reject', op, send: () => call('POST', `/api/admin/requests/${id}/reject`, op, { reason: 'игрок не пришёл' }) });
          // The player's cancel twice under one key: a double click.
          const cancel = { k: 'cancel', op: null, send: () => call('POST', '/api/delete_request/', p, { id }, { 'idempotency-key': `cancel-${id}` }) };
          const racers =
            mode === 'open'
              ? [complete(op1), cancel, reject(op2), cancel]
              : mode === 'claimed'
                ? [cancel, complete(op1), reject(op2), reject(op1), complete(op2), cancel]
                : [{ k: 'claim', op: op1, send: claim }, cancel, complete(op1), reject(op2), cancel];
          // Another racer first each round, and a stagger that differs.
          const lineup = [...racers.slice(round % racers.length), ...racers.slice(0, round % racers.length)];
          const answers = await Promise.all(lineup.map(async (r, i) => ({ ...r, res: await after(stagger(round, i), r.send) })));

          const row = await db().selectFrom('balance_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
          // Every racer here can decide it (or, claimed, its claimer can): it ended, once.
          expect(row.status, what).not.toBe('pending');
          for (const a of answers) {
            if (settle(a.res, `${what}: ${a.k} by ${a.op?.id ?? 'player'}`)) continue;
            const body = a.res.json();
            // Refused for the state it met: already decided (with that status), or another's claim.
            if (body.status !== undefined) expect(body.status, `${what}: ${a.k}`).toBe(row.status);
            if (body.claimed_by !== undefined) expect(body.claimed_by.id, `${what}: ${a.k}`).toBe(op1.id);
          }
          const ok = (k: string) => answers.filter((a) => a.k === k && a.res.statusCode === 200);
          // The one decision that happened is the one that answered 200, by whom the row says.
          expect(ok('complete').map((a) => a.op!.id), what).toEqual(row.status === 'completed' ? [row.processed_by] : []);
          expect(ok('reject').map((a) => a.op!.id), what).toEqual(row.status === 'rejected' ? [row.processed_by] : []);
          // Both cancels under one key share the outcome: both 200 (the second a replay) or both refused.
          expect(answers.filter((a) => a.k === 'cancel').map((a) => a.res.statusCode === 200), what).toEqual([
            row.status === 'cancelled',
            row.status === 'cancelled',
          ]);
          if (row.status === 'cancelled') expect(row.processed_by, what).toBeNull();
          // A standing claim lets only its operator decide, and the player no longer cancel.
          const claimedNow = mode === 'claimed' || ok('claim').length === 1;
          if (claimedNow) expect([row.status !== 'cancelled', row.processed_by], what).toEqual([true, op1.id]);
          if (mode === 'claim-races') expect(ok('claim').length === 1, what).toBe(row.claimed_by === op1.id);

          console.log(kind, 'S4', what, row.status, row.processed_by===op1.id?'op1':row.processed_by===op2.id?'op2':row.processed_by, answers.map((a) => `${a.k}:${a.res.statusCode}`).join(' '));
          // The money moved once, as the decision says.
          const credited = type === 'input' && row.status === 'completed' ? BigInt(amount) : 0n;
          const paidOut = type === 'output' && row.status === 'completed' ? BigInt(amount) : 0n;
          expect((await walletOf(w.id))[currency], what).toBe(start + credited - paidOut);
          // Each operator's decision and claim is audited once, and only when it happened.
          const audited = await db()
            .selectFrom('admin_audit_log')
            .select(['action', 'admin_id'])
            .where('entity_type', '=', 'balance_request')
            .where('entity_id', '=', String(id))
            .orderBy('id')
            .execute();
          const decided = row.status === 'completed' || row.status === 'rejected' ? [[`request.${row.status === 'completed' ? 'complete' : 'reject'}`, row.processed_by]] : [];
          expect(
            audited.map((a) => [a.action, a.admin_id]),
            what,
          ).toEqual([...(claimedNow ? [['request.claim', op1.id]] : []), ...decided]);
    }
    await expectInvariants(before);
  });
});
