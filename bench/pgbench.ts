import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** pgbench's output, run as the cluster's owner (PostgreSQL runs as 'postgres' when the bench runs as root). */
export function pgbench(databaseUrl: string, args: string[], cwd: string): string {
  const base = '/usr/lib/postgresql';
  const bin = readdirSync(base)
    .map((v) => join(base, v, 'bin', 'pgbench'))
    .find((p) => existsSync(p));
  if (!bin) throw new Error('pgbench is missing (Debian package postgresql)');
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args, databaseUrl]] : [bin, [...args, databaseUrl]];
  const r = spawnSync(file, argv, { encoding: 'utf8', cwd });
  if (r.status !== 0) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}
