// STYLE.md's layering of the web app, checked on every lint: a feature never imports another
// feature, and nothing below app/ (features, components, lib, utils, hooks) imports app/. Routes and
// the app shell in app/ compose features; what several features share lives in lib/ or components/.
// Resolves every relative import (static and dynamic) and prints each crossing; exit code 1 if any.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../apps/web/src');
const LAYERS = ['features', 'components', 'lib', 'utils', 'hooks'];
const IMPORT = /(?:from|import)\s*\(?\s*'(\.[^']+)'/g;

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));

const crossings = [];
for (const layer of LAYERS) {
  for (const file of walk(join(SRC, layer)).filter((f) => /\.tsx?$/.test(f))) {
    const from = relative(SRC, file).split('/');
    const ownFeature = from[0] === 'features' ? from[1] : null;
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = relative(SRC, normalize(join(dirname(file), spec))).split('/');
      const otherFeature = to[0] === 'features' && to[1] !== ownFeature;
      if (otherFeature || to[0] === 'app') crossings.push(`${from.join('/')} imports ${to.join('/')}`);
    }
  }
}
if (crossings.length > 0) {
  console.error(`apps/web/src: ${crossings.length} import(s) across STYLE.md's boundaries (features never import each other; only app/ composes them):`);
  for (const c of crossings) console.error(`  ${c}`);
  process.exit(1);
}
