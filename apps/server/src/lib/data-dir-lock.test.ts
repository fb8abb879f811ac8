import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/pg-cluster';
import { DataDirLocked, LOCK_FILE, lockDataDir } from './data-dir-lock';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = join(HERE, '../main.ts');
const ROOT = resolve(HERE, '../../../..');

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

/** A process that takes the lock, says so, and waits to be killed. */
function holder(dir: string, script: string) {
  return run([script, dir]);
}

async function until(check: () => boolean | Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the DATA_DIR lock', () => {
  let dir: string;
  let script: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'adena-lock-'));
    script = join(dir, 'hold.mts');
    writeFileSync(
      script,
      `import { lockDataDir } from ${JSON.stringify(join(HERE, 'data-dir-lock.ts'))};
try { lockDataDir(process.argv[2]); console.log('locked'); setInterval(() => {}, 1000); }
catch (err) { console.error(err.message); process.exit(1); }\n`,
    );
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets one of two processes hold it; the other exits 1 with one line; a killed holder leaves a lock the next one takes over', async () => {
    const data = join(dir, 'data');
    const first = holder(data, script);
    children.push(first.child);
    await until(() => first.output().includes('locked'));

    const second = holder(data, script);
    expect(await second.exited).toBe(1);
    const lines = second.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `DATA_DIR ${data} is in use by process ${first.child.pid} (since ${JSON.parse(readFileSync(join(data, LOCK_FILE), 'utf8')).since}); stop it first, or give this one another DATA_DIR`,
    );

    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(data, LOCK_FILE))).toBe(true);
    const third = holder(data, script);
    children.push(third.child);
    await until(() => third.output().includes('locked'));
    expect(JSON.parse(readFileSync(join(data, LOCK_FILE), 'utf8')).pid).toBe(third.child.pid);
  }, 60_000);

  it('refuses a second lock in the same process and is free again after release', () => {
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLocked);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lockDataDir(dir).release();
  });

  it('takes over a lock naming this very pid when this process never took it (a restarted container)', () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), since: 'x' }));
    lockDataDir(dir).release();
  });

  it('refuses a lock held from another host, naming the file to remove', () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: 'elsewhere', since: 'x' }));
    expect(() => lockDataDir(dir)).toThrow(`DATA_DIR ${dir} is in use by process 1 on elsewhere; if that process no longer runs, remove ${join(dir, LOCK_FILE)}`);
  });

  it('keeps a second server off a DATA_DIR in use', async () => {
    const data = join(dir, 'data');
    const env = { DATA_DIR: data, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const port = await freePort();
    const first = run([MAIN], { ...env, PORT: String(port) });
    children.push(first.child);
    await until(() => fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false), 120_000);
    const second = run([MAIN], { ...env, PORT: String(await freePort()) });
    expect(await second.exited).toBe(1);
    expect(second.output().trim().split('\n')).toEqual([expect.stringMatching(/^DATA_DIR .* is in use by process \d+ /)]);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(existsSync(join(data, LOCK_FILE))).toBe(false);
  }, 180_000);
});
