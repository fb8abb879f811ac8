import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../src/app';
import { type Config, loadConfig } from '../src/config';
import { createDb, type Db, type DbKind } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import { seedDemoServers } from '../src/modules/system/seed';
import { LISTEN_PROBE } from '../src/plugins/realtime-adapter';

export const DB_KINDS: DbKind[] = ['pglite', 'postgres'];
const TEMPLATE_DB = 'adena_template';

/** The test cluster's admin URL, provided by the global setup (vitest 4 does not merge the typed augmentation). */
export const pgAdminUrl = () => (inject as (key: string) => unknown)('pgAdminUrl') as string;

export interface TestDb extends Db {
  url?: string;
}

/** A fresh database: in-memory PGlite, or a clone of the migrated template on the test cluster. */
export async function createTestDb(kind: DbKind, poolSize?: number): Promise<TestDb> {
  if (kind === 'pglite') {
    const db = await createDb({ dataDir: 'memory://' });
    await migrate(db.kysely);
    return db;
  }
  const adminUrl = pgAdminUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  const db = await createDb({ databaseUrl: url, dataDir: '', poolSize });
  return {
    ...db,
    url,
    async close() {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', WEB_DIST: '/nonexistent', ...env });
}

export interface TestApp {
  app: FastifyInstance;
  db: TestDb;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

export async function createTestApp(
  kind: DbKind,
  opts: { env?: Record<string, string>; seed?: boolean; db?: TestDb; now?: () => Date } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adena-data-'));
  const config = testConfig({ DATA_DIR: dataDir, ...opts.env });
  const db = opts.db ?? (await createTestDb(kind));
  if (opts.seed !== false) await seedDemoServers(db.kysely);
  const app = await buildApp(config, db, { now: opts.now });
  await app.ready();
  return {
    app,
    db,
    config,
    dataDir,
    async close() {
      await app.close();
      if (!opts.db) await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Listens on a free loopback port; the app's URL. */
export async function listenLoopback(t: TestApp) {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}

export interface TwoProcesses {
  /** The throwaway database; A seeded it and B shares it. */
  db: TestDb;
  a: TestApp;
  b: TestApp;
  urlA: string;
  urlB: string;
  close(): Promise<void>;
}

/**
 * Two app processes on one throwaway PostgreSQL: B has its own app, pool, LISTEN connection and Socket.IO
 * server on A's database. Both listen on loopback, and both realtime adapters LISTEN before this returns.
 */
export async function createTwoProcesses(): Promise<TwoProcesses> {
  const db = await createTestDb('postgres');
  const opened: Array<() => Promise<void>> = [() => db.close()];
  /** Every step, in reverse, even after one fails (the first failure is thrown at the end). */
  const close = async () => {
    const failures: unknown[] = [];
    for (const step of opened.splice(0).reverse()) await step().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  };
  try {
    const a = await createTestApp('postgres', { db });
    opened.push(() => a.close());
    const shared = await createDb({ databaseUrl: db.url, dataDir: '' });
    opened.push(() => shared.close());
    const b = await createTestApp('postgres', { db: { ...shared, url: db.url }, seed: false });
    opened.push(() => b.close());
    const [urlA, urlB] = [await listenLoopback(a), await listenLoopback(b)];
    await realtimeListening(db, 2);
    return { db, a, b, urlA, urlB, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Until `count` processes' realtime adapters LISTEN on the database. An app's adapter starts its
 * LISTEN connection on its own time: a socket connected and subscribed to one process does not mean
 * that process hears its peers yet, and an event NOTIFYed before then never reaches it.
 */
export async function realtimeListening(db: Db, count: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND query IN ('LISTEN "socket.io#/"', ${LISTEN_PROBE})`.execute(db.kysely);
    if (rows[0]!.n >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0]!.n} of ${count} realtime adapters listen`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A point a race test opens when it chooses: `await g.opened` waits there until `g.open()`. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

/**
 * Holds the locks `take` takes, in a transaction of its own, until `release()`: a race test pauses a
 * call inside its transaction at the lock it needs next. Resolves once the locks are held. `then`, if
 * given, runs in the same transaction after the release: the other side of a race stopped between its
 * two locks (a block holding the user's row, then deleting the user's sessions).
 */
export async function holdLocks(
  db: Db['kysely'],
  take: (trx: Transaction<Database>) => Promise<unknown>,
  then?: (trx: Transaction<Database>) => Promise<unknown>,
) {
  const released = gate();
  const held = gate();
  const done = db.transaction().execute(async (trx) => {
    await take(trx);
    held.open();
    await released.opened;
    await then?.(trx);
  });
  await Promise.race([held.opened, done]);
  return {
    async release() {
      released.open();
      await done;
    },
  };
}

/** How many sessions on this PostgreSQL database wait for a lock (`query`: only those running a statement like it). */
export async function lockWaits(db: Db['kysely'], query = '%') {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE ${query}`.execute(db);
  return rows[0]!.n;
}

/**
 * `count` statements sleeping `seconds` on `db`, as many as its pool has connections: with the app's realtime adapter
 * holding one of them for good, the pool is full and one statement waits in its queue (it gives up at the pool's 5 s
 * connect timeout, which is expected). `ended()` says whether a sleep has ended: a test asserts that something
 * answered "at once", while the pool was still full, with seconds of room for a loaded machine instead of a bound in
 * milliseconds (flakiness audit 3). Await `settled` before the test ends.
 */
export function fillPool(db: Db['kysely'], count: number, seconds = 8) {
  let ended = false;
  const statements = Array.from({ length: count }, () =>
    sql`SELECT pg_sleep(${seconds})`.execute(db).then(
      () => {
        ended = true;
      },
      (err: Error) => {
        if (!/timeout exceeded when trying to connect/.test(err.message)) throw err;
      },
    ),
  );
  return { ended: () => ended, settled: Promise.all(statements).then(() => {}) };
}
