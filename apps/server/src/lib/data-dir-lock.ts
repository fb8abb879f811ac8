import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** Another live process holds the folder; the message is the one line to print. */
export class DataDirLocked extends Error {}

export interface DataDirLock {
  path: string;
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  since: string;
}

export const LOCK_FILE = 'adena.lock';
const held = new Set<string>();

function readHolder(path: string): { raw: string; holder: Holder | null } | null {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const h = JSON.parse(raw) as Holder;
    return { raw, holder: Number.isInteger(h.pid) && typeof h.host === 'string' ? h : null };
  } catch {
    return { raw, holder: null };
  }
}

/** Whether the holder may still run: a process of this host is asked; one of another host is assumed alive. */
function alive(h: Holder, path: string): boolean {
  if (h.host !== hostname()) return true;
  // Our own pid: alive only if this process took the lock (a restarted container reuses pid 1).
  if (h.pid === process.pid) return held.has(path);
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates `path` holding `content`, or fails with EEXIST: written aside, then hard-linked in one step. */
function createWith(path: string, content: string): boolean {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * Makes `dir` a folder of the app's that only its user may enter, mode 0700: the embedded
 * database's and the outbox's (PGlite writes its files 0666 whatever the umask, so the folder is
 * what keeps other local users out of the ledger). Parents it has to create get 0700 too (a new
 * DATA_DIR); an existing parent keeps its mode (DATA_DIR may be the operator's). `dir` itself,
 * existing with a looser mode (made by an earlier version), is tightened; one owned by another
 * user is left as it is.
 */
export function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
}

/**
 * Makes this process the only one using the embedded database in `dataDir`: PGlite keeps no lock
 * of its own, and two processes writing one data folder corrupt it. The lock is a file naming the
 * holder's pid and host; a file left by a process that no longer runs on this host is taken over.
 * Released on release() or when the process exits.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  // A DATA_DIR made here is this user's alone (0700); an existing one keeps its mode.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies Holder);

  for (let tries = 0; tries < 5; tries++) {
    if (createWith(path, mine)) {
      held.add(path);
      const release = () => {
        if (!held.delete(path)) return;
        process.off('exit', release);
        if (readHolder(path)?.raw === mine) unlinkSync(path);
      };
      process.on('exit', release);
      return { path, release };
    }
    const found = readHolder(path);
    if (!found) continue;
    const h = found.holder;
    if (h && alive(h, path)) {
      throw new DataDirLocked(
        h.host === hostname()
          ? `DATA_DIR ${dir} is in use by process ${h.pid} (since ${h.since}); stop it first, or give this one another DATA_DIR`
          : `DATA_DIR ${dir} is in use by process ${h.pid} on ${h.host}; if that process no longer runs, remove ${path}`,
      );
    }
    // Stale (or unreadable): move it aside in one step, and put it back if what moved was not the
    // file judged stale (another process replaced it in between).
    const aside = `${path}.stale.${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    if (readHolder(aside)?.raw !== found.raw) {
      try {
        linkSync(aside, path);
      } catch {}
    }
    unlinkSync(aside);
  }
  throw new DataDirLocked(`DATA_DIR ${dir}: could not take ${path}; another process keeps replacing it`);
}
