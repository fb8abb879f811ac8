// The player's first page: JavaScript it loads (gzip), and Lighthouse's mobile performance and
// accessibility scores against Debian's Chromium, on the built app served by the real server.
// Goals (issue 7): first-page JS under 160 KB gzip, performance ≥ 95, accessibility ≥ 98.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { ROOT, startServer } from './lib';

const DIST = join(ROOT, 'apps/web/dist');
execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });

/** The entry chunk and every chunk it imports statically: what the first page must download. */
function firstPageJs() {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const entry = /<script type="module" crossorigin src="\/([^"]+)"/.exec(html)?.[1];
  if (!entry) throw new Error('no entry script in index.html');
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(join(DIST, file), 'utf8');
    for (const m of src.matchAll(/(?:import|from)\s*["']\.\/([^"']+\.js)["']/g)) visit(join('assets', m[1]!));
  };
  visit(entry);
  return [...files].map((f) => ({ file: f, gzip: gzipSync(readFileSync(join(DIST, f))).length }));
}

const chunks = firstPageJs();
const total = chunks.reduce((s, c) => s + c.gzip, 0);
for (const c of chunks) console.log(`${c.file.padEnd(40)} ${(c.gzip / 1024).toFixed(1).padStart(7)} KB gzip`);
console.log(`${'first-page JavaScript'.padEnd(40)} ${(total / 1024).toFixed(1).padStart(7)} KB gzip (goal < 160)`);

const server = await startServer({ env: { WEB_DIST: DIST } });
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
try {
  // Lighthouse's default: a mid-range phone on a throttled mobile connection.
  const result = await lighthouse(`${server.url}/`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] });
  const lhr = result?.lhr;
  if (!lhr) throw new Error('Lighthouse returned no report');
  const score = (k: string) => Math.round((lhr.categories[k]?.score ?? 0) * 100);
  console.log(`Lighthouse mobile performance: ${score('performance')} (goal ≥ 95)`);
  console.log(`Lighthouse mobile accessibility: ${score('accessibility')} (goal ≥ 98)`);
  for (const id of ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift']) {
    console.log(`  ${lhr.audits[id]?.title}: ${lhr.audits[id]?.displayValue}`);
  }
  const failed = Object.values(lhr.audits).filter((a) => a.score !== null && a.score < 1 && lhr.categories.accessibility?.auditRefs.some((r) => r.id === a.id));
  for (const a of failed) console.log(`  accessibility: ${a.title}`);
} finally {
  chrome.kill();
  await server.stop();
}
