import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, createTestDb, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;

// Real PostgreSQL with a pool of 40, so the parallel requests really overlap in the database.
describe('deposits and withdrawals under concurrency on postgres', () => {
  let t: TestApp;
  let serverId: number;
  let operators: Player[];
  const call = (method: 'GET' | 'POST', url: string, who: Player, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { ...who.auth, ...headers }, ...(payload ? { payload } : {}) });
  const balances = async (userId: number) => {
    const w = await t.db.kysely.selectFrom('wallets').select(['balance', 'balance_second']).where('user_id', '=', userId).executeTakeFirstOrThrow();
    return [Number(w.balance), Number(w.balance_second)];
  };
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  const playerWith = async (adena: bigint) => {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId);
    if (adena) await fund(t.db.kysely, w, adena);
    return p;
  };

  beforeAll(async () => {
    t = await createTestApp('postgres', { db: await createTestDb('postgres', 40) });
    serverId = await firstServerId(t.db.kysely);
    operators = await Promise.all(Array.from({ length: 4 }, () => createUser(t.db.kysely, { admin: true })));
  });
  afterAll(async () => {
    await t.close();
    await t.db.close();
  });

  it('40 parallel withdrawals against room for 10 hold exactly 10 and never go below zero', async () => {
    const p = await playerWith(10n * BigInt(2 * KK));
    const results = await Promise.all(
      Array.from({ length: 40 }, () => call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(30);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().low_cap === true)).toBe(true);
    expect(await balances(p.id)).toEqual([0, 0]);
    const held = await t.db.kysely.selectFrom('balance_requests').select('id').where('user_id', '=', p.id).where('status', '=', 'pending').execute();
    expect(held).toHaveLength(10);
    await expectAudit();
  });

  it('four operators pressing complete on the same deposits credit each exactly once', async () => {
    const p = await playerWith(0n);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK })).json().success.id);
    const results = await Promise.all(ids.flatMap((id) => operators.map((op) => call('POST', `/api/admin/requests/${id}/complete`, op, {}))));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(15);
    expect(await balances(p.id)).toEqual([15 * KK, 0]);
    const audits = await t.db.kysely.selectFrom('admin_audit_log').select('entity_id').where('entity_id', 'in', ids.map(String)).execute();
    expect(audits).toHaveLength(5);
    await expectAudit();
  });

  it('complete, reject and the player cancel racing on one withdrawal: one wins, the money moves once', async () => {
    for (let round = 0; round < 8; round++) {
      const p = await playerWith(5n * BigInt(KK));
      const { id } = (await call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 5 * KK })).json().success;
      const results = await Promise.all([
        call('POST', `/api/admin/requests/${id}/complete`, operators[0]!, {}),
        call('POST', `/api/admin/requests/${id}/reject`, operators[1]!, { reason: 'гонка' }),
        call('POST', '/api/delete_request/', p, { id }),
        call('POST', '/api/delete_request/', p, { id }),
      ]);
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      const { status } = await t.db.kysely.selectFrom('balance_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      expect(await balances(p.id)).toEqual([status === 'completed' ? 0 : 5 * KK, 0]);
    }
    await expectAudit();
  });

  it('ten parallel retries with one Idempotency-Key hold once and all get the first answer', async () => {
    const p = await playerWith(10n * BigInt(KK));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 4 * KK }, { 'idempotency-key': 'retry-me' })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.json().success.id)).size).toBe(1);
    expect(await balances(p.id)).toEqual([6 * KK, 0]);
    await expectAudit();
  });

  it('any mix of deposits, withdrawals, cancels and operator decisions run at once keeps the ledger whole (property)', async () => {
    type Op =
      | { kind: 'deposit'; amount: number; next: 'complete' | 'reject' | 'cancel' | 'leave' }
      | { kind: 'withdraw'; amount: number; next: 'complete' | 'reject' | 'cancel' | 'leave' };
    const opArb: fc.Arbitrary<Op> = fc.record({
      kind: fc.constantFrom('deposit' as const, 'withdraw' as const),
      amount: fc.integer({ min: 1, max: 6 }).map((n) => n * KK),
      next: fc.constantFrom('complete' as const, 'reject' as const, 'cancel' as const, 'leave' as const),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 12 }), async (ops, start) => {
        const p = await playerWith(BigInt(start * KK));
        // Phase 1: every request at once. Withdrawals may be refused for low balance, never overdraw.
        const created = await Promise.all(
          ops.map(async (op) => {
            const url = op.kind === 'deposit' ? '/api/up_balance_user/' : '/api/down_balance_user/';
            const res = await call('POST', url, p, { gamesserver_id: serverId, amount: op.amount });
            // 409: a withdrawal beyond the balance (low_cap), or a sixth pending deposit.
            if (res.statusCode === 409) expect(op.kind === 'deposit' ? /5 заявок/.test(res.json().message) : res.json().low_cap).toBe(true);
            else expect(res.statusCode).toBe(200);
            return { op, id: res.statusCode === 200 ? (res.json().success.id as number) : null };
          }),
        );
        const [mid] = await balances(p.id);
        expect(mid).toBeGreaterThanOrEqual(0);
        // Phase 2: every decision at once, each one twice (a double click, or two operators).
        await Promise.all(
          created.flatMap(({ op, id }, i) => {
            if (id === null || op.next === 'leave') return [];
            const op1 = operators[i % operators.length]!;
            const op2 = operators[(i + 1) % operators.length]!;
            if (op.next === 'cancel') return [call('POST', '/api/delete_request/', p, { id }), call('POST', '/api/delete_request/', p, { id })];
            const path = `/api/admin/requests/${id}/${op.next}`;
            const body = op.next === 'reject' ? { reason: 'проверка' } : {};
            return [call('POST', path, op1, body), call('POST', path, op2, body)];
          }),
        );
        // The model: start + completed deposits − withdrawals that were not returned.
        const rows = await t.db.kysely.selectFrom('balance_requests').select(['type', 'status', 'amount']).where('user_id', '=', p.id).execute();
        const expected = rows.reduce((sum, r) => {
          const a = Number(r.amount);
          if (r.type === 'input') return r.status === 'completed' ? sum + a : sum;
          return r.status === 'completed' || r.status === 'pending' ? sum - a : sum;
        }, start * KK);
        expect(await balances(p.id)).toEqual([expected, 0]);
        expect(rows.every((r) => r.status !== 'pending' || created.some((c) => c.op.next === 'leave'))).toBe(true);
        await expectAudit();
      }),
      { numRuns: 15 },
    );
  });
});
