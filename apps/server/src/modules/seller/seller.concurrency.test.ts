import type { SellerCode } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createTestApp, createTestDb, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';

const KK = 1_000_000;

// Real PostgreSQL with a pool of 30, so the retries really overlap in the database.
describe('the seller API under concurrency on postgres', () => {
  let t: TestApp;
  let serverId: number;

  beforeAll(async () => {
    t = await createTestApp('postgres', { db: await createTestDb('postgres', 30) });
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(async () => {
    await t.close();
    await t.db.close();
  });

  const setup = async (funds: bigint) => {
    const seller = await createUser(t.db.kysely);
    const wallet = await createWallet(t.db.kysely, seller.id, serverId);
    await fund(t.db.kysely, wallet, funds);
    const key = (await t.app.inject({ method: 'POST', url: '/api/api_keys', headers: seller.auth, payload: { name: 'bot' } })).json().key as string;
    return { seller, wallet, key };
  };
  const balanceOf = async (walletId: number) =>
    Number((await t.db.kysely.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance);

  it('issues once under 20 parallel retries of one Idempotency-Key; every answer is the same codes or a 409', async () => {
    const { seller, wallet, key } = await setup(1000n * BigInt(KK));
    const before = await balanceOf(wallet.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/codes',
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'order-777' },
          payload: { gamesserver_id: serverId, nominal: 5 * KK, count: 10, external_id: 'FP-777' },
        }),
      ),
    );
    expect(results.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    const ok = results.filter((r) => r.statusCode === 200).map((r) => r.json() as { codes: SellerCode[]; summa: number });
    expect(ok.length).toBeGreaterThan(0);
    for (const a of ok) expect(a).toEqual(ok[0]);
    const codes = await t.db.kysely.selectFrom('codes').select(['id', 'price']).where('user_id', '=', seller.id).execute();
    expect(codes).toHaveLength(10);
    expect(codes.map((c) => c.id).sort()).toEqual(ok[0]!.codes.map((c) => c.id).sort());
    expect(await balanceOf(wallet.id)).toBe(before - ok[0]!.summa);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('never overdraws with parallel distinct issues, and cancels refund once under parallel cancels', async () => {
    const { wallet, key } = await setup(BigInt(35 * KK));
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/codes',
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': `k${i}` },
          payload: { gamesserver_id: serverId, nominal: KK, count: 5 },
        }),
      ),
    );
    expect(results.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    expect(await balanceOf(wallet.id)).toBeGreaterThanOrEqual(0);
    const issued = results.filter((r) => r.statusCode === 200).flatMap((r) => (r.json() as { codes: SellerCode[] }).codes);
    const spent = issued.reduce((s, c) => s + c.price, 0);
    expect(await balanceOf(wallet.id)).toBe(35 * KK - spent);

    const target = issued[0]!;
    const before = await balanceOf(wallet.id);
    const cancels = await Promise.all(
      Array.from({ length: 10 }, () => t.app.inject({ method: 'DELETE', url: `/api/v1/codes/${target.id}`, headers: { authorization: `Bearer ${key}` } })),
    );
    expect(cancels.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    expect(await balanceOf(wallet.id)).toBe(before + target.price);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('keeps at most 20 live keys under 30 parallel requests for one', async () => {
    const seller = await createUser(t.db.kysely);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => t.app.inject({ method: 'POST', url: '/api/api_keys', headers: seller.auth, payload: { name: `bot ${i}` } })),
    );
    expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    const live = await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', seller.id).where('revoked_at', 'is', null).execute();
    expect(live.length).toBeLessThanOrEqual(20);
    expect(live).toHaveLength(answers.filter((r) => r.statusCode === 200).length);
  });

  it("logs a key's call whose client hung up before the answer (an integrator's timeout), though its codes were issued", async () => {
    const { seller, wallet, key } = await setup(100n * BigInt(KK));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    // The wallet's row is held, so the issue waits in the database while the client gives up.
    const lock = await holdLocks(t.db.kysely, (trx) => sql`SELECT id FROM wallets WHERE id = ${wallet.id} FOR UPDATE`.execute(trx));
    const body = JSON.stringify({ gamesserver_id: serverId, nominal: KK, count: 2 });
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/codes',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'timeout-1', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => {});
    req.end(body);
    try {
      for (let i = 0; i < 200 && (await lockWaits(t.db.kysely)) === 0; i++) await sleep(25);
      expect(await lockWaits(t.db.kysely)).toBeGreaterThan(0);
      req.destroy();
      await sleep(100);
    } finally {
      await lock.release();
    }
    const issued = async () => (await t.db.kysely.selectFrom('codes').select('id').where('user_id', '=', seller.id).execute()).length;
    for (let i = 0; i < 200 && (await issued()) < 2; i++) await sleep(25);
    expect(await issued()).toBe(2);
    const calls = () => t.db.kysely.selectFrom('api_key_calls').select(['method', 'path', 'status_code']).where('user_id', '=', seller.id).execute();
    for (let i = 0; i < 200 && (await calls()).length === 0; i++) await sleep(25);
    expect(await calls()).toEqual([{ method: 'POST', path: '/api/v1/codes', status_code: 499 }]);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });
});
