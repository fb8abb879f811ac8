import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, createTestDb, type TestApp } from '../../../test/harness';
import { feeOf } from '../../lib/money';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;
const price = (nominal: number) => nominal + Number(feeOf(BigInt(nominal), 300));
type Player = Awaited<ReturnType<typeof createUser>>;

// Real PostgreSQL with a pool of 40, so the parallel requests really overlap in the database.
describe('gift codes under concurrency on postgres', () => {
  let t: TestApp;
  let serverId: number;
  let seller: Player;
  let sellerWallet: { id: number; gamesserver_id: number };
  const call = (method: 'POST', url: string, who: Player, payload?: object, ip = '127.0.0.1') =>
    t.app.inject({ method, url, headers: who.auth, remoteAddress: ip, ...(payload ? { payload } : {}) });
  const balanceOf = async (walletId: number) =>
    Number((await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance);
  const expectAudit = async () => expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  const issue = async (nominal: number) => {
    const res = await call('POST', '/api/show_code/', seller, { gamesserver_id: serverId, nominal, wallet_id: sellerWallet.id });
    expect(res.statusCode).toBe(200);
    return res.json() as { code_id: number; sert: string; summa: number };
  };

  beforeAll(async () => {
    t = await createTestApp('postgres', { db: await createTestDb('postgres', 40) });
    serverId = await firstServerId(t.db.kysely);
    seller = await createUser(t.db.kysely);
    sellerWallet = await createWallet(t.db.kysely, seller.id, serverId);
    await fund(t.db.kysely, sellerWallet, 10_000n * BigInt(KK));
  });
  afterAll(async () => {
    await t.close();
    await t.db.close();
  });

  it('activates a code exactly once under 50 parallel attempts by 50 players', async () => {
    const code = await issue(7 * KK);
    const players = await Promise.all(Array.from({ length: 50 }, () => createUser(t.db.kysely)));
    const results = await Promise.all(
      players.map((p, i) => call('POST', '/api/activation_code/', p, { sert: code.sert }, `10.1.${Math.floor(i / 200)}.${i % 200}`)),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(49);
    const credited = await t.db.kysely
      .selectFrom('wallets')
      .select(['user_id', 'balance'])
      .where('user_id', 'in', players.map((p) => p.id))
      .where('balance', '>', 0n)
      .execute();
    expect(credited).toHaveLength(1);
    expect(Number(credited[0]!.balance)).toBe(7 * KK);
    // The 49 losers each opened one incident for the seller.
    const incidents = await t.db.kysely.selectFrom('code_incidents').select('id').where('code_id', '=', code.code_id).execute();
    expect(incidents).toHaveLength(49);
    await expectAudit();
  });

  it('activates a code exactly once under 50 parallel attempts by one player', async () => {
    const code = await issue(3 * KK);
    const buyer = await createUser(t.db.kysely);
    const results = await Promise.all(Array.from({ length: 50 }, () => call('POST', '/api/activation_code/', buyer, { sert: code.sert })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    // The rest: 409 (already activated), or 429 for tries beyond the player's allowance of guesses
    // that were in flight at once (each is counted before its lookup, and given back after it).
    expect(results.every((r) => [200, 409, 429].includes(r.statusCode))).toBe(true);
    const w = await t.db.kysely.selectFrom('wallets').select('id').where('user_id', '=', buyer.id).executeTakeFirstOrThrow();
    expect(await balanceOf(w.id)).toBe(3 * KK);
    await expectAudit();
  });

  it('never overdraws one balance with parallel show_code', async () => {
    const u = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, u.id, serverId);
    const each = price(KK);
    await fund(t.db.kysely, w, BigInt(each * 7 + 5)); // room for exactly 7 codes
    const results = await Promise.all(
      Array.from({ length: 30 }, () => call('POST', '/api/show_code/', u, { gamesserver_id: serverId, nominal: KK, wallet_id: w.id })),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(7);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().low_cap === true)).toBe(true);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(23);
    expect(await balanceOf(w.id)).toBe(5);
    expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', u.id).execute()).toHaveLength(7);
    await expectAudit();
  });

  it('issues one code for 10 parallel retries with one Idempotency-Key, and answers each with it', async () => {
    const u = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 100n * BigInt(KK));
    const body = { gamesserver_id: serverId, nominal: KK, wallet_id: w.id };
    const send = (payload: object, key: string) =>
      t.app.inject({ method: 'POST', url: '/api/show_code/', headers: { ...u.auth, 'idempotency-key': key }, payload });
    const results = await Promise.all(Array.from({ length: 10 }, () => send(body, 'retry-1')));
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.json().code_id)).size).toBe(1);
    expect(await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', u.id).execute()).toHaveLength(1);
    expect(await balanceOf(w.id)).toBe(100 * KK - price(KK));
    // The same key with another request is refused; a new key is a new code.
    expect((await send({ ...body, nominal: 2 * KK }, 'retry-1')).statusCode).toBe(409);
    expect((await send(body, 'retry-2')).json().code_id).not.toBe(results[0]!.json().code_id);
    await expectAudit();
  });

  it('moves the money once when the issuer cancels while others activate', async () => {
    for (let round = 0; round < 5; round++) {
      const code = await issue(2 * KK);
      const before = await balanceOf(sellerWallet.id);
      const buyers = await Promise.all(Array.from({ length: 5 }, () => createUser(t.db.kysely)));
      const [cancel, ...activations] = await Promise.all([
        call('POST', `/api/codes/${code.code_id}/cancel`, seller),
        ...buyers.map((b) => call('POST', '/api/activation_code/', b, { sert: code.sert })),
      ]);
      const activated = activations.filter((r) => r.statusCode === 200).length;
      if (cancel!.statusCode === 200) {
        expect(activated).toBe(0);
        expect(await balanceOf(sellerWallet.id)).toBe(before + code.summa);
      } else {
        expect(cancel!.statusCode).toBe(409);
        expect(activated).toBe(1);
        expect(await balanceOf(sellerWallet.id)).toBe(before);
      }
      await expectAudit();
    }
  });
});
