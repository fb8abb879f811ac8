// Builds of the web app (Vite) and the server (esbuild), each with a stamp: a hash of its inputs
// written beside the output once the build succeeded. A build whose stamp matches its inputs is
// fresh; `npm start` builds only what is missing or stale (decision record 0017).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SRC = join(ROOT, 'apps/server/src');
export const SERVER_DIST = join(ROOT, 'apps/server/dist');
const WEB_DIST = join(ROOT, 'apps/web/dist');
const STAMP = '.build-stamp';

const SKIP_DIRS = new Set(['node_modules', 'dist', 'e2e', '.vite']);

function walk(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() && SKIP_DIRS.has(e.name) ? [] : walk(join(path, e.name))));
}

/** A hash of the inputs' paths and contents (not their times: a fresh checkout need not rebuild). */
function hashOf(paths, skip = () => false) {
  const h = createHash('sha256');
  for (const file of paths.flatMap(walk).filter((f) => !skip(f)).sort()) {
    h.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return h.digest('hex');
}

const shared = ['packages/contract/src', 'packages/contract/package.json', 'package-lock.json'].map((p) => join(ROOT, p));
const serverInputs = () =>
  hashOf([SERVER_SRC, join(ROOT, 'apps/server/package.json'), join(ROOT, 'scripts/build-lib.mjs'), ...shared], (f) => /\.test\.ts$/.test(f));
const webInputs = () => hashOf([join(ROOT, 'apps/web'), ...shared], (f) => /\.test\.tsx?$/.test(f));

const stampOf = (dir) => (existsSync(join(dir, STAMP)) ? readFileSync(join(dir, STAMP), 'utf8').trim() : null);

/** The external packages stay imports resolved from node_modules at run time; the workspace's TypeScript is bundled. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@adena/') ? undefined : { path: args.path, external: true }));
  },
};

/** Compiles apps/server/src to apps/server/dist/{main,ops}.js and copies the SQL files db/ reads at run time. */
export async function buildServer() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error('esbuild is missing: run npm ci (with dev dependencies) to build the server');
  }
  const hash = serverInputs();
  rmSync(SERVER_DIST, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'apps/server/src/main.ts', ops: 'apps/server/src/ops/cli.ts' },
    outdir: SERVER_DIST,
    bundle: true,
    splitting: true,
    // Chunks stay beside the entries: import.meta.url-relative paths (migrations, the web app) hold for all.
    chunkNames: '[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [externalPackages],
  });
  // db/migrate.ts reads its SQL beside itself (import.meta.url): in the bundle, beside main.js.
  const db = join(SERVER_SRC, 'db');
  for (const file of walk(db).filter((f) => f.endsWith('.sql'))) {
    const to = join(SERVER_DIST, relative(db, file));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(file, to);
  }
  writeFileSync(join(SERVER_DIST, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(SERVER_DIST, STAMP), `${hash}\n`);
}

export function buildWeb() {
  const hash = webInputs();
  const r = spawnSync('npm', ['run', '-s', 'build', '-w', '@adena/web'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the web build failed');
  writeFileSync(join(WEB_DIST, STAMP), `${hash}\n`);
}

/** Builds the server when its output is missing or older than its sources; sources absent (an image) means as built. */
export async function ensureServer() {
  const built = existsSync(join(SERVER_DIST, 'main.js'));
  if (built && !existsSync(SERVER_SRC)) return false;
  if (built && stampOf(SERVER_DIST) === serverInputs()) return false;
  await buildServer();
  return true;
}

export function ensureWeb() {
  const built = existsSync(join(WEB_DIST, 'index.html'));
  if (built && !existsSync(join(ROOT, 'apps/web/src'))) return false;
  if (built && stampOf(WEB_DIST) === webInputs()) return false;
  buildWeb();
  return true;
}
