import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { createDb, type Db, databaseUrlRefusal } from './db/client';
import { migrate } from './db/migrate';
import { untilReachable } from './db/unavailable';
import { DataDirLocked, lockDataDir } from './lib/data-dir-lock';
import { ensureAdmin, seedDemoServers } from './modules/system/seed';

/** How long stopping waits for the database's connections to close before it exits anyway. */
const DB_CLOSE_MS = 2_000;

/**
 * db.close(), waited for at most DB_CLOSE_MS; false when it did not finish. Through a silent network
 * cut to PostgreSQL (no reset, no answer) the pool's end waits for goodbyes that never come and for a
 * job worker's claim query until query_timeout, past the 10 s exit deadline.
 */
async function closeDb(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), DB_CLOSE_MS);
  });
  const closed = await Promise.race([db.close().then(() => true, () => true), late]);
  clearTimeout(timer);
  return closed;
}

/** The setting to name when the listener cannot start, and why. */
const LISTEN_FAILURES: Record<string, [setting: 'PORT' | 'HOST', why: string]> = {
  EADDRINUSE: ['PORT', 'the port is taken'],
  EACCES: ['PORT', 'a port below 1024 needs privileges'],
  EADDRNOTAVAIL: ['HOST', 'not an address of this machine'],
  ENOTFOUND: ['HOST', 'no such host'],
};

/** The settings, or one line naming the bad one and exit 1; on the embedded database, its folder taken for this process. */
function settingsOrExit() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  // One process per embedded database folder; a second one stops here with one line.
  if (!config.DATABASE_URL) {
    try {
      lockDataDir(config.DATA_DIR);
    } catch (err) {
      if (!(err instanceof DataDirLocked)) throw err;
      console.error(err.message);
      process.exit(1);
    }
  }
  return config;
}

async function main() {
  // A stop asked before the server listens (the database still unreachable, migrations running) ends the
  // process at once (the draining shutdown takes over as soon as it listens): as PID 1 in a container, a signal with no handler is dropped, and `docker stop` would
  // wait its whole grace period for a kill. Nothing is served yet, so nothing is cut off.
  const stopEarly = (signal: NodeJS.Signals) => {
    console.error(`${signal} before the server started: stopping`);
    process.exit(0);
  };
  process.on('SIGTERM', stopEarly);
  process.on('SIGINT', stopEarly);
  // Files this process and its children create are its user's alone (0600, folders 0700): PGlite's
  // folders, the outbox and the lock file in DATA_DIR hold or guard secrets.
  process.umask(0o077);
  const config = settingsOrExit();
  const db = await createDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: config.DATABASE_POOL_SIZE });
  await untilReachable(
    async () => {
      await migrate(db.kysely);
      if (config.DEMO_SERVERS) await seedDemoServers(db.kysely);
      if (config.ADMIN_EMAIL && config.ADMIN_PASSWORD) await ensureAdmin(db.kysely, config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
    },
    (line) => console.error(line),
  );

  const app = await buildApp(config, db);
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    // A taken port is the operator's to fix, as a bad setting is: one line naming it, as METRICS_PORT's below.
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw err;
    const [setting, why] = LISTEN_FAILURES[code] ?? ['PORT', 'the listener could not start'];
    console.error(`${setting}=${config[setting]}: cannot listen on ${config.HOST}:${config.PORT} (${code}: ${why})`);
    await app.close();
    await closeDb(db);
    process.exit(1);
  }
  app.log.info(`database: ${db.kind}`);
  // PRODUCT.md section 9: /api/ready turns 503 at once so the balancer stops sending new work,
  // the process keeps serving for SHUTDOWN_DELAY_MS (the balancer's checks notice meanwhile), then
  // stops accepting, lets in-flight requests finish, closes sockets and exits 0.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.deps.readiness.drain();
    app.log.info(`${signal}: draining for ${config.SHUTDOWN_DELAY_MS} ms, then finishing in-flight requests`);
    await new Promise((r) => setTimeout(r, config.SHUTDOWN_DELAY_MS));
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    // Every request is answered and the job worker has stopped (app.ts's close hooks; a job still
    // running is left to its lease, as after a crash): only connections are left to close. Should the
    // database have gone silent, they get DB_CLOSE_MS and the stop is still a clean one (PostgreSQL
    // ends a session whose client is gone; an open transaction is rolled back).
    if (!(await closeDb(db))) app.log.warn(`the database connections did not close within ${DB_CLOSE_MS} ms; exiting anyway`);
    clearTimeout(timer);
    process.exit(0);
  };
  process.off('SIGTERM', stopEarly);
  process.off('SIGINT', stopEarly);
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Fastify only logs a failed onListen hook (and runs them after listen() answers): a metrics port that
  // is taken would leave the process serving, ready, and without the metrics it was started for.
  if (config.METRICS_PORT !== undefined && (await app.deps.metricsStarted) === null) {
    console.error(`METRICS_PORT=${config.METRICS_PORT}: the metrics listener could not start (the port is taken?)`);
    await app.close();
    await closeDb(db);
    process.exit(1);
  }
}

main().catch((err) => {
  // A database, role or password of DATABASE_URL that the server refuses is the operator's to fix, as a
  // bad setting is: one line (untilReachable does not retry it). Anything else is ours: the whole stack.
  console.error(databaseUrlRefusal(err) ?? (err instanceof Error ? (err.stack ?? err.message) : err));
  process.exit(1);
});
