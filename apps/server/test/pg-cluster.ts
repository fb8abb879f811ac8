import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PgCluster {
  url: string;
  stop(): void;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when this resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast` without removing the cluster; `start()` brings it back. */
  halt(): Promise<void>;
  start(): Promise<void>;
}

function pgBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => join(base, v, 'bin')).find((d) => existsSync(join(d, 'pg_ctl')));
  if (!dir) throw new Error('PostgreSQL server binaries are missing: install the Debian package "postgresql"');
  return dir;
}

/** Linux hands out ports for outgoing connections from 32768–60999: ours stay below that range. */
const FIRST_PORT = 20_000;
const PORTS_PER_WORKER = 600;
let nextPort = 0;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A loopback port for another process to listen on (a PostgreSQL cluster, the server started as
 * `node dist/main.js`). A port from `listen(0)` would come from the range the kernel also gives
 * outgoing connections, so one of the suite's own connections could take it between our check and
 * the child's bind; these come from below that range, from a slice of its own for each test worker
 * (VITEST_POOL_ID), walked in turn, so two workers never pick the same one.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 0) % 20;
  const first = FIRST_PORT + worker * PORTS_PER_WORKER;
  if (nextPort === 0) nextPort = (process.pid * 7) % PORTS_PER_WORKER;
  for (let tries = 0; tries < PORTS_PER_WORKER; tries++) {
    const port = first + (nextPort++ % PORTS_PER_WORKER);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${first}–${first + PORTS_PER_WORKER - 1}`);
}

/**
 * A throwaway PostgreSQL cluster in a temp dir on a loopback port. PostgreSQL refuses to run
 * as root, so as root it runs as the Debian 'postgres' user.
 */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'adena-pg-'));
  chmodSync(dir, 0o777);
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
    const r = spawnSync(file, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '--no-sync', '-U', 'postgres', '-E', 'UTF8', '--locale=C']);
  const opts = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // Speed over durability: a crash (`-m immediate`) loses commits already answered, so restarts here are clean
    // (`-m fast`) and no test crashes a cluster whose confirmed money it then checks (README, Deployment).
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']);
  // The same commands without blocking the event loop, so app servers in this process keep serving.
  const runAsync = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const full = join(bin, cmd);
      const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
      const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} failed: ${err}`))));
    });
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => runAsync('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    halt: () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start: () => runAsync('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']),
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export function hasPostgresBinaries(): boolean {
  try {
    pgBinDir();
    return true;
  } catch {
    return false;
  }
}

// Kept for scripts that want a plain psql call.
export const psql = (url: string, sqlText: string) => execFileSync('psql', [url, '-Atc', sqlText], { encoding: 'utf8' });
