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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
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
