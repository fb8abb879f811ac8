import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../test/pg-cluster';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'main.ts');
const ROOT = resolve(dirname(MAIN), '../../..');

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
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

describe('the server process', () => {
  it('refuses a bad setting with one line naming it and exit code 1', async () => {
    const p = start({ PORT: 'abc' });
    expect(await p.exited).toBe(1);
    const lines = p.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
  });

  it('starts on embedded PostgreSQL in DATA_DIR, serves the API and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adena-main-'));
    const port = await freePort();
    const p = start({ PORT: String(port), DATA_DIR: dataDir });
    try {
      // A cold PGlite start takes seconds on a quiet machine and far longer on a loaded one: wait for
      // readiness (up to 2 minutes), never for a fixed time.
      let health: unknown;
      for (const deadline = Date.now() + 120_000; !health && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 250));
        health = await fetch(`http://127.0.0.1:${port}/api/health`)
          .then((r) => r.json())
          .catch(() => undefined);
      }
      expect(health).toEqual({ status: 'ok', ok: true, db: 'pglite' });
      const servers = (await (await fetch(`http://127.0.0.1:${port}/api/gamesservers`)).json()) as unknown[];
      expect(servers.length).toBeGreaterThan(0);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
