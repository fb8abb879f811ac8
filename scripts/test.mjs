#!/usr/bin/env node
// The one test command: system packages, typecheck, lint, web build, unit + integration tests
// (PGlite and a throwaway PostgreSQL), then browser tests in Debian's Chromium.
// Prints one closing line "tests: N passed, M failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reports = join(root, '.tmp', 'reports');
rmSync(reports, { recursive: true, force: true });

function hasPostgres() {
  const base = '/usr/lib/postgresql';
  return existsSync(base) && readdirSync(base).some((v) => existsSync(join(base, v, 'bin', 'pg_ctl')));
}

function ensureSystemPackages() {
  const missing = [];
  if (!existsSync('/usr/bin/chromium')) missing.push('chromium');
  if (!hasPostgres()) missing.push('postgresql');
  if (!existsSync('/usr/share/fonts/truetype/dejavu')) missing.push('fonts-dejavu-core');
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.error(`Missing system packages: install them with "sudo apt-get install ${missing.join(' ')}"`);
    process.exit(1);
  }
  console.log(`Installing ${missing.join(', ')} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  // A failed install stops here, with one line, instead of in the browser tests with a stranger error.
  if (!run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env })) {
    console.error(`apt-get could not install ${missing.join(' ')}: install them and run the tests again`);
    process.exit(1);
  }
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  return r.status === 0;
}

const step = (name, cmd, args) => {
  console.log(`\n=== ${name} ===`);
  const ok = run(cmd, args);
  if (!ok) console.log(`=== ${name}: FAILED ===`);
  return ok;
};

function countVitest(file) {
  if (!existsSync(file)) return { passed: 0, failed: 1 };
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return { passed: r.numPassedTests ?? 0, failed: (r.numFailedTests ?? 0) + (r.success === false && !r.numFailedTests ? 1 : 0) };
}

ensureSystemPackages();
const bin = (name) => join(root, 'node_modules', '.bin', name);
const results = [];
let ok = true;
ok = step('typecheck', 'npm', ['run', '-s', 'typecheck']) && ok;
ok = step('lint', bin('biome'), ['check', '.']) && ok;
ok = step('web layering', process.execPath, ['scripts/check-boundaries.mjs']) && ok;
ok = step('sizes', process.execPath, ['scripts/check-sizes.mjs']) && ok;
const built = step('build web', 'npm', ['run', '-s', 'build']);
ok = built && ok;

const vitest = (name, config) => {
  const out = join(reports, `${name}.json`);
  const passed = step(name, bin('vitest'), ['run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
  results.push(countVitest(out));
  return passed;
};
ok = vitest('unit and integration tests', 'vitest.config.ts') && ok;
if (built) ok = vitest('browser tests', 'vitest.e2e.config.ts') && ok;

const passed = results.reduce((s, r) => s + r.passed, 0);
const failed = results.reduce((s, r) => s + r.failed, 0) + (ok ? 0 : failed0());
function failed0() {
  // A failed typecheck, lint or build counts as one failure even when every test passed.
  return results.every((r) => r.failed === 0) ? 1 : 0;
}
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
