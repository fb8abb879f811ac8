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
  // Every script the first page downloaded (the entry and what it imports, statically or at boot),
  // as the server sent it (the build's precompressed .gz; Lighthouse asks for gzip).
  const scripts = ((lhr.audits['network-requests']?.details as { items?: Array<{ url: string; resourceType?: string; transferSize?: number }> })?.items ?? []).filter(
    (r) => r.resourceType === 'Script' && r.url.startsWith(server.url),
  );
  for (const r of scripts) {
    const file = new URL(r.url).pathname.slice(1);
    console.log(`${file.padEnd(40)} ${(gzipSync(readFileSync(join(DIST, file))).length / 1024).toFixed(1).padStart(7)} KB gzip`);
  }
  const total = scripts.reduce((sum, r) => sum + gzipSync(readFileSync(join(DIST, new URL(r.url).pathname.slice(1)))).length, 0);
  console.log(`${'first-page JavaScript'.padEnd(40)} ${(total / 1024).toFixed(1).padStart(7)} KB gzip (goal < 160)`);
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
