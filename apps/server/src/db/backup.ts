import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { privateFolder } from '../lib/data-dir-lock';
import { databaseUrlRefusal } from './client';
import { isDatabaseUnavailable } from './unavailable';

/** A refusal or failure to print as one line. */
export class BackupError extends Error {}

export interface BackupTarget {
  /** A real PostgreSQL; unset means the embedded PGlite in DATA_DIR. */
  databaseUrl?: string;
  dataDir: string;
  /** Where pg_dump and pg_restore are (PG_BIN_DIR). */
  pgBinDir?: string;
}

export type BackupKind = 'pglite' | 'postgres';

/** Where db/client.ts keeps the embedded database inside DATA_DIR. */
export const pgliteDir = (dataDir: string) => resolve(dataDir, 'pglite');

const kindOf = (t: BackupTarget): BackupKind => (t.databaseUrl ? 'postgres' : 'pglite');

/** A file system error's words without its code and path: `permission denied` of `EACCES: permission denied, open '/x'`. */
const systemWords = (err: unknown) => /^\w+: ([^,]+)/.exec((err as Error).message)?.[1] ?? (err as Error).message;

/** A file's kind by its first bytes: pg_dump's custom format, or PGlite's gzipped tarball. */
export function backupKindOf(file: string): BackupKind | null {
  const head = Buffer.alloc(5);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 5, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === 'PGDMP') return 'postgres';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'pglite';
  return null;
}

/** pg_dump and pg_restore: from PG_BIN_DIR, else the newest of Debian's /usr/lib/postgresql/N/bin, else PATH. */
function pgTool(name: 'pg_dump' | 'pg_restore', binDir: string | undefined): string {
  if (binDir) return join(binDir, name);
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] ? join(base, versions[0], 'bin', name) : name;
}

/**
 * DATABASE_URL without its password, and the password apart (percent-decoded, as libpq reads it):
 * pg_dump and pg_restore get the URL on their command line, which every local user can read (ps,
 * /proc/PID/cmdline), and the password in PGPASSWORD, which only the same user can
 * (/proc/PID/environ). The credentials are what stands between `://` and the last `@` before the
 * query string (as config.ts masks them: a password may hold `@` or `/`), the password what follows
 * their first `:`; a `password=` of the query string is taken out too.
 */
export function splitPassword(url: string): { url: string; password?: string } {
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  let password: string | undefined;
  let rest = url;
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^?]*)@/i.exec(rest);
  if (m) {
    const [whole, scheme, userinfo] = m as unknown as [string, string, string];
    const colon = userinfo.indexOf(':');
    if (colon >= 0) {
      password = decode(userinfo.slice(colon + 1));
      const user = userinfo.slice(0, colon);
      rest = `${scheme}${user ? `${user}@` : ''}${rest.slice(whole.length)}`;
    }
  }
  // libpq lets the query string's password win over the one before the host.
  const q = rest.indexOf('?');
  if (q >= 0) {
    const params = rest.slice(q + 1).split('&');
    const kept = params.filter((p) => {
      if (!p.startsWith('password=')) return true;
      password = decode(p.slice('password='.length));
      return false;
    });
    rest = kept.length ? `${rest.slice(0, q)}?${kept.join('&')}` : rest.slice(0, q);
  }
  return password === undefined ? { url: rest } : { url: rest, password };
}

/**
 * The URL as libpq reads it: the parameters only node-postgres knows, which make pg_dump refuse the whole
 * URL ("invalid URI query parameter") although the app connects with it, become libpq's own: `ssl=true`
 * is `sslmode=require`, `ssl=false` is dropped, `sslmode=no-verify` (node-postgres: TLS without checking
 * the certificate) is `sslmode=require`, and `uselibpqcompat` goes.
 */
export function libpqUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .flatMap((p) => {
      const [key = '', value = ''] = p.split('=');
      if (key === 'ssl') return value === 'true' || value === '1' ? ['sslmode=require'] : [];
      if (key === 'sslmode' && value === 'no-verify') return ['sslmode=require'];
      if (key === 'uselibpqcompat') return [];
      return [p];
    });
  return params.length ? `${url.slice(0, q)}?${[...new Set(params)].join('&')}` : url.slice(0, q);
}

/** `--dbname=` for pg_dump and pg_restore, and the environment that carries its password. */
function connection(databaseUrl: string): { arg: string; env: NodeJS.ProcessEnv } {
  const { url, password } = splitPassword(databaseUrl);
  return { arg: `--dbname=${libpqUrl(url)}`, env: password === undefined ? process.env : { ...process.env, PGPASSWORD: password } };
}

function runTool(cmd: string, args: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    // Aborted (the operator's Ctrl-C, a stop): the tool is ended and the run fails as interrupted.
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env, signal, killSignal: 'SIGTERM' });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', (e) => {
      // Aborted: the answer waits for the tool's exit, so no pg_dump outlives the run.
      if (signal?.aborted) return child.pid === undefined ? reject(interrupted()) : undefined;
      reject(new BackupError((e as NodeJS.ErrnoException).code === 'ENOENT' ? `${cmd} not found: install postgresql-client, or set PG_BIN_DIR` : `${cmd}: ${e.message}`));
    });
    child.on('exit', (code) => {
      if (signal?.aborted) reject(interrupted());
      else if (code === 0) resolvePromise();
      else reject(new BackupError(`${cmd.split('/').pop()} failed: ${err.trim().split('\n')[0] ?? `exit ${code}`}`));
    });
  });
}

const interrupted = () => new BackupError('backup interrupted: nothing written');

/** `FILE.<pid>.<12 hex>.partial`: the name a run writes under before its file takes its name. */
const partialOf = (file: string, pid: number) => `${file}.${pid}.${randomBytes(6).toString('hex')}.partial`;

/** The partial files this process is writing now: the only ones under its own pid that are not leftovers. */
const writing = new Set<string>();

/**
 * Removes what runs killed outright (SIGKILL, a crash) left beside `file`: partial dumps of processes that are gone.
 * They hold the same secrets as a backup. A process still running (another backup to the same file) keeps its own.
 * One named with this process's own pid is a leftover unless this process is writing it: run as one container per
 * backup, every run is pid 1, and a killed run's file would otherwise be kept for ever.
 */
function removeLeftovers(file: string) {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.[0-9a-f]{12}\.partial$/.exec(name.slice(prefix.length));
    const path = join(dir, name);
    const pid = Number(m?.[1]);
    if (!m || writing.has(resolve(path)) || (pid !== process.pid && processAlive(pid))) continue;
    rmSync(path, { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Writes a consistent copy of the configured database to `file`: pg_dump's custom format (one
 * snapshot) for PostgreSQL, PGlite's own tarball of its data folder for the embedded one (the
 * caller holds the DATA_DIR lock, so no server writes meanwhile). Written aside under a name of
 * this run's own, then renamed: two backups to the same file never write into, delete or rename
 * each other's (the last to finish wins, whole). A run that fails or is aborted (`signal`) removes its own file;
 * what a killed run left beside the file is removed by the next run.
 * The file holds secrets (gift-code serts, TOTP secrets, webhook signing secrets, maybe the
 * sealing key), so only its owner may read it: mode 0600 from its creation, whatever the umask.
 */
export async function backup(target: BackupTarget, file: string, opts: { signal?: AbortSignal } = {}): Promise<{ kind: BackupKind; bytes: number }> {
  const { signal } = opts;
  removeLeftovers(file);
  // Beside the file, so the rename stays on one file system and is atomic.
  const partial = partialOf(file, process.pid);
  const cannotWrite = (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') return err;
    return new BackupError(`cannot write ${file}: ${code === 'ENOENT' && !existsSync(dirname(file)) ? `no folder ${dirname(file)}` : systemWords(err)} (${code})`);
  };
  // Made here, new (never someone else's file or link put in its place) and with mode 0600;
  // pg_dump and PGlite write into it and keep that mode.
  try {
    closeSync(openSync(partial, 'wx', 0o600));
  } catch (err) {
    throw cannotWrite(err);
  }
  writing.add(resolve(partial));
  let bytes: number;
  try {
    if (target.databaseUrl) {
      const { arg, env } = connection(target.databaseUrl);
      await runTool(pgTool('pg_dump', target.pgBinDir), ['--format=custom', '--no-owner', '--no-privileges', `--file=${partial}`, arg], env, signal);
    } else {
      const dir = pgliteDir(target.dataDir);
      if (!existsSync(join(dir, 'PG_VERSION'))) throw new BackupError(`DATA_DIR ${resolve(target.dataDir)} holds no database to back up`);
      const db = await PGlite.create(dir);
      try {
        const blob = await db.dumpDataDir('gzip');
        try {
          writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
        } catch (err) {
          throw cannotWrite(err);
        }
      } finally {
        await db.close();
      }
    }
    if (signal?.aborted) throw interrupted();
    try {
      // And again before it takes its name, should a tool have made the file anew instead.
      chmodSync(partial, 0o600);
      bytes = statSync(partial).size;
      renameSync(partial, file);
    } catch (err) {
      throw cannotWrite(err);
    }
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    writing.delete(resolve(partial));
  }
  return { kind: kindOf(target), bytes };
}

/**
 * One line for a connection DATABASE_URL could not make: refused (no such database or role, a wrong
 * password) or not reached (nothing listening, a host that does not answer). Other errors unchanged.
 */
function connectFailure(err: unknown): unknown {
  const refused = databaseUrlRefusal(err);
  if (refused) return new BackupError(refused);
  if (!isDatabaseUnavailable(err)) return err;
  const { code, message } = err as { code?: unknown; message: string };
  return new BackupError(`DATABASE_URL: the database cannot be reached (${typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message})`);
}

async function postgresIsEmpty(url: string): Promise<boolean> {
  // A host that drops packets gives up after 10 s, not the kernel's minutes.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw connectFailure(err);
  }
  try {
    const r = await client.query<{ n: string }>(`
      SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%')
           + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
              WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')) AS n`);
    return Number(r.rows[0]?.n) === 0;
  } finally {
    await client.end();
  }
}

/**
 * Loads a backup into the configured database, which must be empty: a PostgreSQL database with
 * no tables or functions, or a DATA_DIR without an embedded database. Anything else is refused,
 * so a restore never mixes two databases or overwrites one.
 */
export async function restore(target: BackupTarget, file: string): Promise<{ kind: BackupKind }> {
  if (!existsSync(file)) throw new BackupError(`${file}: no such file`);
  let fileKind: BackupKind | null;
  try {
    fileKind = backupKindOf(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw err;
    throw new BackupError(`cannot read ${file}: ${systemWords(err)} (${code})`);
  }
  const kind = kindOf(target);
  if (!fileKind) throw new BackupError(`${file} is not a backup made by npm run backup`);
  if (fileKind !== kind) {
    throw new BackupError(
      fileKind === 'postgres'
        ? `${file} is a PostgreSQL backup: set DATABASE_URL to an empty PostgreSQL database to restore it`
        : `${file} is a backup of the embedded database: unset DATABASE_URL and point DATA_DIR at an empty folder to restore it`,
    );
  }
  if (target.databaseUrl) {
    if (!(await postgresIsEmpty(target.databaseUrl))) {
      throw new BackupError('the database at DATABASE_URL is not empty; restore only into a new, empty database');
    }
    const { arg, env } = connection(target.databaseUrl);
    await runTool(pgTool('pg_restore', target.pgBinDir), ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', arg, file], env);
    return { kind };
  }
  const dir = pgliteDir(target.dataDir);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new BackupError(`DATA_DIR ${resolve(target.dataDir)} already holds a database; restore only into an empty DATA_DIR`);
  }
  privateFolder(dir);
  try {
    const db = await PGlite.create(dir, { loadDataDir: new Blob([readFileSync(file)]) });
    try {
      await db.query('SELECT count(*) FROM schema_migrations');
    } finally {
      await db.close();
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err instanceof BackupError ? err : new BackupError(`${file} could not be loaded: ${(err as Error).message}`);
  }
  return { kind };
}
