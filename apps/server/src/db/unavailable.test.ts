import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, pgAdminUrl, type TestDb, testConfig } from '../../test/harness';
import { buildApp } from '../app';
import { seedDemoServers } from '../modules/system/seed';
import { READY_REUSE_MS } from '../modules/operations/readiness.service';
import { createDb, type Db } from './client';
import { isDatabaseUnavailable, untilReachable } from './unavailable';

const UNAVAILABLE = 'Сервис временно недоступен. Повторите попытку через минуту';

describe('what counts as the database being unavailable', () => {
  it('counts too many connections, a read-only server (failover), one starting up, and lost connections; not errors of the statement', () => {
    for (const code of ['53300', '25006', '57P03', '57P01', '08006', '57014', '40P01', 'ECONNREFUSED']) {
      expect(isDatabaseUnavailable({ code }), code).toBe(true);
    }
    for (const code of ['23505', '42P01', '53100', '53200', '25P02', '22003']) {
      expect(isDatabaseUnavailable({ code }), code).toBe(false);
    }
  });
});

/**
 * As the reviewer reproduced it: the app connects as a role of its own (not a superuser: they are
 * exempt from connection limits); the role is limited to 0 connections and its sessions are ended,
 * so every new connection is refused with 53300 "too many connections for role".
 */
describe('a PostgreSQL server refusing connections with 53300 (too many connections)', () => {
  let db: TestDb;
  let admin: pg.Client;
  let role: string;
  let roleDb: Db;
  let app: FastifyInstance;
  let dataDir: string;

  /** Sets the role's connection limit; at 0 its sessions are ended too, until a new connection of the pool meets 53300. */
  const limit = async (n: number) => {
    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT ${n}`);
    if (n !== 0) return;
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    await expect
      .poll(() => sql`SELECT 1`.execute(roleDb.kysely).then(
        () => 'connected',
        (e: { code?: string }) => e.code,
      ))
      .toBe('53300');
  };

  beforeAll(async () => {
    db = await createTestDb('postgres');
    await seedDemoServers(db.kysely);
    role = `limited_${randomBytes(4).toString('hex')}`;
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
    await admin.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    const url = new URL(db.url!);
    url.username = role;
    roleDb = await createDb({ databaseUrl: url.href, dataDir: '', poolSize: 3 });
    dataDir = mkdtempSync(join(tmpdir(), 'adena-53300-'));
    app = await buildApp(testConfig({ DATA_DIR: dataDir }), roleDb);
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await roleDb?.close();
    await admin?.end();
    await db?.close();
    const cluster = new pg.Client({ connectionString: pgAdminUrl() });
    await cluster.connect();
    await cluster.query(`DROP ROLE IF EXISTS ${role}`);
    await cluster.end();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers calls 503 with Retry-After and the Russian message (not 500), and /api/ready 503', async () => {
    await limit(0);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/gamesservers' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({ message: UNAVAILABLE });
      const ready = await app.inject({ method: 'GET', url: '/api/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', message: UNAVAILABLE });
    } finally {
      await limit(-1);
    }
    expect((await app.inject({ method: 'GET', url: '/api/gamesservers' })).statusCode).toBe(200);
    // /api/ready reuses its last answer for a second (READY_REUSE_MS): the next check after it says ready.
    await new Promise((r) => setTimeout(r, READY_REUSE_MS + 50));
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200);
  });

  it('keeps the start-up wait waiting (instead of exiting), and it goes on once connections are let in again', async () => {
    await limit(0);
    const lines: string[] = [];
    let outcome: 'done' | Error | undefined;
    const waiting = untilReachable(
      async () => {
        await sql`SELECT count(*) FROM gamesservers`.execute(roleDb.kysely);
      },
      (line) => lines.push(line),
      1_000,
    ).then(
      () => {
        outcome = 'done';
      },
      (err: Error) => {
        outcome = err;
      },
    );
    try {
      await expect.poll(() => lines.length > 1 || outcome !== undefined).toBe(true);
      expect(outcome).toBeUndefined();
      expect(lines[0]).toBe('database unreachable (53300); trying again in 1 s');
    } finally {
      await limit(-1);
    }
    await waiting;
    expect(outcome).toBe('done');
  });

  it('counts a write refused by a server that takes none (25006, a failover onto a standby not yet promoted)', async () => {
    await admin.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
      // The pool's ended sessions fail first (57P01); a new one is read-only.
      let err: { code?: string } | null = null;
      await expect
        .poll(async () => {
          err = await sql`UPDATE gamesservers SET sort_order = sort_order WHERE false`.execute(roleDb.kysely).then(
            () => null,
            (e: { code?: string }) => e,
          );
          return err?.code;
        })
        .toBe('25006');
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await admin.query(`ALTER ROLE ${role} RESET default_transaction_read_only`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    }
  });
});
