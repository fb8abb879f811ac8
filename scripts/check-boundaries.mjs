// The layering rules, checked on every lint and test run; prints each crossing and exits 1 if any.
//
// apps/web/src (STYLE.md): a feature never imports another feature, and nothing below app/
// (features, components, lib, utils, hooks) imports app/. Routes and the app shell in app/ compose
// features; what several features share lives in lib/ or components/.
//
// apps/server/src (decision record 0015), test files exempt:
// - only *.repository.ts and db/ import kysely or pg;
// - a route file (*.routes.ts) never imports a repository;
// - a module never imports another module's repository;
// - nothing but main.ts imports app.ts.
//
// And one rule of MUI 9 that TypeScript cannot see (its type takes any string): a component's `color`
// prop names a palette colour (`color="textSecondary"`); a path (`color="text.secondary"`) was a system
// prop, which MUI 9 dropped, and is silently ignored. `sx={{ color: 'text.secondary' }}` still takes one.
//
// Usage: node scripts/check-boundaries.mjs [root], root defaulting to this repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
// Static imports and re-exports (`from '…'`), side-effect imports and dynamic import().
const IMPORT = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

const walk = (dir) =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
    : [];
const importsOf = (file) => [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => m[1]);
/** A relative import as a path from src (without extension handling: `./x` and `./x.ts` alike). */
const target = (src, file, spec) => relative(src, normalize(join(dirname(file), spec))).replace(/\.[cm]?[jt]sx?$/, '');

function webCrossings(src) {
  const crossings = [];
  for (const layer of ['features', 'components', 'lib', 'utils', 'hooks']) {
    for (const file of walk(join(src, layer)).filter((f) => /\.tsx?$/.test(f))) {
      const from = relative(src, file).split('/');
      const ownFeature = from[0] === 'features' ? from[1] : null;
      for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
        const to = target(src, file, spec).split('/');
        const otherFeature = to[0] === 'features' && to[1] !== ownFeature;
        if (otherFeature || to[0] === 'app') crossings.push(`${from.join('/')} imports ${to.join('/')}`);
      }
    }
  }
  for (const file of walk(src).filter((f) => /\.tsx$/.test(f) && !/\.test\.tsx$/.test(f))) {
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
      // color="a.b", color='a.b', and a path anywhere in color={…} (a ternary).
      const attr = /\scolor=(?:"([^"]*)"|'([^']*)'|\{([^}]*)\})/.exec(line);
      const path = attr && /\b([a-zA-Z]+\.[a-zA-Z]+)\b/.exec(attr[1] ?? attr[2] ?? (attr[3] ?? '').replace(/[^'"`]*(['"`])([^'"`]*)\1/g, ' $2 '));
      const quoted = attr?.[3] === undefined || /['"`][a-zA-Z]+\.[a-zA-Z]+['"`]/.test(attr[3]);
      if (path && quoted) crossings.push(`${relative(src, file)}:${i + 1} color="${path[1]}" (MUI 9 ignores a path: name the colour, or use sx)`);
    }
  }
  return crossings;
}

function serverCrossings(src) {
  const crossings = [];
  const files = walk(src).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
  for (const file of files) {
    const from = relative(src, file);
    const name = from.split('/').pop();
    const isRepository = name.endsWith('.repository.ts');
    const inDb = from.startsWith('db/');
    const ownModule = from.startsWith('modules/') ? from.split('/')[1] : null;
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) {
        const pkg = spec.split('/')[0];
        if ((pkg === 'kysely' || pkg === 'pg') && !isRepository && !inDb) crossings.push(`${from} imports ${pkg} (only repositories and db/ may)`);
        continue;
      }
      const to = target(src, file, spec);
      const toRepository = to.endsWith('.repository');
      if (toRepository && name.endsWith('.routes.ts')) crossings.push(`${from} imports ${to} (routes call services)`);
      const toModule = to.startsWith('modules/') ? to.split('/')[1] : null;
      if (toRepository && ownModule && toModule && ownModule !== toModule) crossings.push(`${from} imports ${to} (another module's repository)`);
      if (to === 'app' && from !== 'main.ts') crossings.push(`${from} imports app.ts (only main.ts may)`);
    }
  }
  return crossings;
}

let failed = false;
for (const [dir, check, rule] of [
  ['apps/web/src', webCrossings, "STYLE.md's boundaries (features never import each other; only app/ composes them) or MUI 9's colour props"],
  ['apps/server/src', serverCrossings, "decision record 0015's layers"],
]) {
  const src = join(ROOT, dir);
  if (!existsSync(src)) continue;
  const crossings = check(src);
  if (crossings.length === 0) continue;
  failed = true;
  console.error(`${dir}: ${crossings.length} import(s) across ${rule}:`);
  for (const c of crossings) console.error(`  ${c}`);
}
if (failed) process.exit(1);
