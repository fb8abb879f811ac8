#!/usr/bin/env node
// npm start / serve / backup / restore: builds what is missing or stale, then runs the compiled
// server (apps/server/dist) in this very process, with plain node and no TypeScript runner.
//   node scripts/start.mjs [--web] main|ops [args…]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureServer, ensureWeb, SERVER_DIST } from './build-lib.mjs';

const args = process.argv.slice(2);
const web = args[0] === '--web';
if (web) args.shift();
const [entry, ...rest] = args;
if (entry !== 'main' && entry !== 'ops') {
  console.error('usage: node scripts/start.mjs [--web] main|ops [args…]');
  process.exit(1);
}
try {
  if (web) ensureWeb();
  await ensureServer();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
const target = join(SERVER_DIST, `${entry}.js`);
process.setSourceMapsEnabled(true);
process.argv = [process.argv[0], target, ...rest];
await import(pathToFileURL(target).href);
