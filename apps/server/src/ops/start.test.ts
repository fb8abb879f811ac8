import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/pg-cluster';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const DIST = join(ROOT, 'apps/server/dist');

function start(args: string[], env: Record<string, string>) {
  // Plain node, no TypeScript runner: what npm start and the image run.
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

describe('the compiled server', () => {
  it('is built when missing, then serves from apps/server/dist with plain node and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adena-start-'));
    const port = await freePort();
    // A bad setting exits at once, after the build: the build is then on disk with its stamp.
    const bad = start(['scripts/start.mjs', 'main'], { PORT: 'abc' });
    expect(await bad.exited).toBe(1);
    expect(bad.output().trim().split('\n').at(-1)).toMatch(/^Invalid setting PORT="abc"/);
    expect(existsSync(join(DIST, 'main.js'))).toBe(true);
    expect(existsSync(join(DIST, 'migrations/0014_jobs.sql'))).toBe(true);
    expect(readFileSync(join(DIST, 'main.js'), 'utf8')).not.toMatch(/from ["']tsx/);

    const p = start([join(DIST, 'main.js')], { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', WEB_DIST: '/nonexistent' });
    try {
      let health: unknown;
      for (let i = 0; i < 240 && !health; i++) {
        await new Promise((r) => setTimeout(r, 250));
        health = await fetch(`http://127.0.0.1:${port}/api/health`).then(
          (r) => r.json(),
          () => undefined,
        );
      }
      expect(health).toMatchObject({ ok: true });
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
