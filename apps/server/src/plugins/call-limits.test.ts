import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, createTestDb, DB_KINDS, fillPool, type TestApp, type TestDb } from '../../test/harness';
import { rateLimitsRepository } from '../modules/sessions/rate-limits.repository';
import { FLUSH_ON_CLOSE_MS } from './call-limits';

const IP = '192.0.2.33';
const call = async (t: TestApp, url: string, remoteAddress = IP) => {
  const res = await t.app.inject({ method: 'GET', url, remoteAddress });
  return { status: res.statusCode };
};

// A balancer's health checks come every 2 s from one address: they pass no call limit.
describe.each(DB_KINDS)('health checks and the call limits on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // 1% of the normal limits: 6 calls a minute per address.
    t = await createTestApp(kind, { env: { RATE_LIMIT_SCALE: '0.01' } });
  });
  afterAll(async () => t?.close());

  it('/api/ready and /api/health are neither counted nor refused; every other call still is', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await call(t, '/api/ready')).status).toBe(200);
      expect((await call(t, i % 2 ? '/api/health' : '/api/health?x=1')).status).toBe(200);
    }
    // They spent none of the address's 6 calls.
    for (let i = 0; i < 6; i++) expect((await call(t, '/api/gamesservers')).status).toBe(200);
    expect((await call(t, '/api/gamesservers')).status).toBe(429);
    // Nor are they refused while the address is over its limit.
    expect((await call(t, '/api/ready')).status).toBe(200);
    expect((await call(t, '/api/health')).status).toBe(200);
    // Another method on their paths, or an escaped path, is an ordinary call.
    expect((await t.app.inject({ method: 'POST', url: '/api/ready', remoteAddress: IP })).statusCode).toBe(429);
    expect((await call(t, '/%61pi/ready')).status).toBe(429);
  });
});

describe('health checks while every connection of a small pool is busy (PostgreSQL)', () => {
  let db: TestDb;
  let t: TestApp;
  beforeAll(async () => {
    db = await createTestDb('postgres', 3);
    t = await createTestApp('postgres', { db });
  });
  afterAll(async () => {
    await t?.close();
    await db?.close();
  });

  it('two checks 2 s apart from one address both answer at once: none waits on the pool to count the call', async () => {
    // The address is new to the process, as every minute's first check was (its key's window had ended):
    // counting it meant a sync through the pool before answering.
    // "At once" is "while every connection is still taken" (fillPool).
    const pool = fillPool(db.kysely, 3);
    try {
      await expect.poll(() => db.poolStats()).toMatchObject({ total: 3, idle: 0 });
      await expect.poll(() => db.poolStats()!.waiting).toBeGreaterThan(0);
      const first = await Promise.all([call(t, '/api/ready'), call(t, '/api/health')]);
      expect(pool.ended()).toBe(false);
      await new Promise((r) => setTimeout(r, 2000));
      const second = await Promise.all([call(t, '/api/ready'), call(t, '/api/health')]);
      expect(pool.ended()).toBe(false); // every connection still taken when the second checks answered
      for (const r of [...first, ...second]) expect(r.status).toBe(200);
    } finally {
      await pool.settled;
    }
  }, 30_000);
});

// A SIGTERM while the network to PostgreSQL is silently cut: the last counts' write would wait for the pool's
// connect timeout or the statement's read timeout, and main.ts's 10 s deadline would end the stop with exit 1.
describe.each(DB_KINDS)('closing while the last counts cannot reach the database, on %s', (kind) => {
  it('drops them after a short wait, with a warning, instead of holding the close', async () => {
    const t = await createTestApp(kind);
    const writes = vi.spyOn(rateLimitsRepository, 'addHits');
    try {
      // The address's first call is synced before it is answered; the next ones are sent in batches.
      expect((await call(t, '/api/zz-no-such-call')).status).toBe(404);
      // From here the database never answers a write.
      writes.mockImplementation(() => new Promise(() => {}));
      for (let i = 0; i < 3; i++) expect((await call(t, '/api/zz-no-such-call')).status).toBe(404);
      expect(writes.mock.calls.length).toBeGreaterThan(1);
      const warn = vi.spyOn(t.app.log, 'warn');
      const outcome = await Promise.race([
        t.close().then(() => 'closed'),
        // A bound for a close that never finishes, not a wait: a passing close takes about FLUSH_ON_CLOSE_MS.
        new Promise((r) => setTimeout(() => r('still waiting'), 5_000).unref()),
      ]);
      expect(outcome).toBe('closed');
      expect(warn).toHaveBeenCalledWith({ waitedMs: FLUSH_ON_CLOSE_MS }, expect.stringMatching(/did not reach the database in time; dropped/));
    } finally {
      writes.mockRestore();
    }
  });
});
