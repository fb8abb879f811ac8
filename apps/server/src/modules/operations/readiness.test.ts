import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentCut } from '../../../test/fakes/silent-relay';
import { createTestApp, createTestDb, fillPool, type TestApp, type TestDb } from '../../../test/harness';
import { createDb } from '../../db/client';
import { operationsRepository } from './operations.repository';
import { createReadiness, READY_REUSE_MS } from './readiness.service';

const readyOf = async (t: { app: TestApp['app'] }) => {
  const started = Date.now();
  const res = await t.app.inject({ method: 'GET', url: '/api/ready' });
  return { status: res.statusCode, ms: Date.now() - started };
};

/** Past the last answer's reuse (READY_REUSE_MS): the next check pings again. */
const pastReuse = () => new Promise((r) => setTimeout(r, READY_REUSE_MS + 50));

// /api/ready says whether the database answers, not whether this process's pool has a free slot.
describe('readiness on PostgreSQL', () => {
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

  it('stays 200, at once, while every connection of a pool of 3 is busy with slow statements', async () => {
    expect((await readyOf(t)).status).toBe(200);
    // "At once" is "while every connection is still taken" (fillPool).
    const pool = fillPool(db.kysely, 3);
    try {
      // Every slot taken (the realtime adapter may hold one for good), and calls queue for one.
      await expect.poll(() => db.poolStats()).toMatchObject({ total: 3, idle: 0 });
      await expect.poll(() => db.poolStats()!.waiting).toBeGreaterThan(0);
      // A fresh ping, not the first check's answer reused.
      await pastReuse();
      expect((await readyOf(t)).status).toBe(200);
      expect(pool.ended()).toBe(false); // every connection still taken when readiness answered
    } finally {
      await pool.settled;
    }
    // The ping's connection is not kept: only the pool's and the LISTEN connections remain.
    await expect
      .poll(async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'SHOW transaction_read_only' AND state = 'idle'`.execute(db.kysely)).rows[0]!.n)
      .toBe(0);
  }, 30_000);
});

describe('readiness when PostgreSQL takes no writes (a standby during a failover)', () => {
  it('answers 503 while new sessions are read-only, and 200 again once they are not', async () => {
    const db = await createTestDb('postgres');
    const t = await createTestApp('postgres', { db, seed: false });
    const name = new URL(db.url!).pathname.slice(1);
    try {
      expect((await readyOf(t)).status).toBe(200);
      await sql`ALTER DATABASE ${sql.id(name)} SET default_transaction_read_only = on`.execute(db.kysely);
      await pastReuse();
      expect((await readyOf(t)).status).toBe(503);
      await sql`ALTER DATABASE ${sql.id(name)} RESET default_transaction_read_only`.execute(db.kysely);
      await pastReuse();
      expect((await readyOf(t)).status).toBe(200);
    } finally {
      await sql`ALTER DATABASE ${sql.id(name)} RESET default_transaction_read_only`.execute(db.kysely);
      await t.close();
      await db.close();
    }
  }, 30_000);
});

describe('readiness when PostgreSQL goes silent (a network cut), and comes back', () => {
  it('answers 503 within its 2 s limit while nothing passes, and 200 again once it does', async () => {
    const db = await createTestDb('postgres');
    const relay = await silentCut(new URL(db.url!));
    const cut = await createDb({ databaseUrl: relay.url, dataDir: '', poolSize: 3 });
    const t = await createTestApp('postgres', { db: cut, seed: false });
    let heal: (() => void) | undefined;
    try {
      expect((await readyOf(t)).status).toBe(200);
      heal = relay.cut();
      await pastReuse();
      const r = await readyOf(t);
      expect(r.status).toBe(503);
      expect(r.ms).toBeLessThan(8_000); // its 2 s limit, with room for a loaded machine; unbounded, the wait is TCP's minutes
      heal();
      heal = undefined;
      await expect.poll(async () => (await readyOf(t)).status).toBe(200);
    } finally {
      heal?.();
      await t.close();
      await cut.close();
      await relay.close();
      await db.close();
    }
    // About 5 s on a quiet machine (the reused answers' waits, the 2 s ping limit). It took 15 s while the Db's
    // close() left the pool's idle connection open for its 10 s idle timeout, which the relay's close() waited out.
  }, 30_000);
});

describe('checks that arrive together', () => {
  it('share one ping: a flood of /api/ready opens no connection each', async () => {
    let pings = 0;
    const ping = vi.spyOn(operationsRepository, 'ping').mockImplementation(async () => {
      pings += 1;
      await new Promise((r) => setTimeout(r, 50));
    });
    try {
      const readiness = createReadiness({ db: {} as never });
      const answers = await Promise.all(Array.from({ length: 20 }, () => readiness.check()));
      expect(answers).toEqual(new Array(20).fill({ ready: true }));
      expect(pings).toBe(1);
      // Checks one after another within a second take that answer: a flood from one address opens no connection each.
      for (let i = 0; i < 50; i++) await readiness.check();
      expect(pings).toBe(1);
      // A second later the next check asks the database again.
      await new Promise((r) => setTimeout(r, READY_REUSE_MS + 50));
      await readiness.check();
      expect(pings).toBe(2);
    } finally {
      ping.mockRestore();
    }
  });
});
