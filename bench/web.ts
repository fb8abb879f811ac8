// The player's first page: JavaScript it loads (gzip), and Lighthouse's mobile performance,
// accessibility and total blocking time against Debian's Chromium, on the built app served by the
// real server. Five Lighthouse runs each of the app and of the ceiling, taken in turns so that a
// busy machine weighs on both alike; each run and the medians are printed.
// The ceiling: the app's own index.html with nothing but React and React DOM rendering the same
// static first screen (bench/web-ceiling.tsx), served by a second real server the same way.
// Goals (issue 19): first-page JS ≤ 150 KB gzip, performance ≥ 98 (median of five), accessibility
// 100, total blocking time < 150 ms.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import { build } from 'esbuild';
import lighthouse from 'lighthouse';
import { ROOT, startServer } from './lib';

const RUNS = Number(process.env.RUNS ?? 5);
const DIST = join(ROOT, 'apps/web/dist');
execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });

/** The ceiling's dist: the app's index.html, its scripts replaced by the React-only bundle. */
async function buildCeiling(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'adena-web-ceiling-'));
  mkdirSync(join(dir, 'assets'));
  await build({
    entryPoints: [join(ROOT, 'bench/web-ceiling.tsx')],
    outfile: join(dir, 'assets/ceiling.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const html = readFileSync(join(DIST, 'index.html'), 'utf8')
    .replace(/<script type="module"[^>]*><\/script>/g, '')
    .replace(/<link rel="(modulepreload|manifest)"[^>]*>/g, '')
    .replace('</body>', '<script type="module" src="/assets/ceiling.js"></script></body>');
  writeFileSync(join(dir, 'index.html'), html);
  for (const file of ['index.html', 'assets/ceiling.js']) {
    const data = readFileSync(join(dir, file));
    writeFileSync(join(dir, `${file}.gz`), gzipSync(data, { level: 9 }));
    writeFileSync(join(dir, `${file}.br`), brotliCompressSync(data));
  }
  return dir;
}

interface Run {
  performance: number;
  accessibility: number;
  tbt: number;
  fcp: number;
  lcp: number;
  cls: number;
  jsKb: number;
  scripts: Array<{ file: string; kb: number }>;
  failedA11y: string[];
  /** The element Lighthouse took as the largest contentful paint (its selector). */
  lcpElement: string;
}

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});

async function measure(url: string, dist: string): Promise<Run> {
  // Lighthouse's default: a mid-range phone on a throttled mobile connection.
  const result = await lighthouse(`${url}/`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] });
  const lhr = result?.lhr;
  if (!lhr) throw new Error('Lighthouse returned no report');
  // Every script the page downloaded (the entry and what it imports, statically or at boot),
  // gzipped here at the default level, so that the figure does not depend on the encoding sent.
  const requests = (lhr.audits['network-requests']?.details as { items?: Array<{ url: string; resourceType?: string }> })?.items ?? [];
  const scripts = requests
    .filter((r) => r.resourceType === 'Script' && r.url.startsWith(url))
    .map((r) => {
      const file = new URL(r.url).pathname.slice(1);
      return { file, kb: gzipSync(readFileSync(join(dist, file))).length / 1024 };
    });
  const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
    tbt: audit('total-blocking-time'),
    fcp: audit('first-contentful-paint'),
    lcp: audit('largest-contentful-paint'),
    cls: audit('cumulative-layout-shift'),
    jsKb: scripts.reduce((s, r) => s + r.kb, 0),
    scripts,
    lcpElement: lcpElementOf(lhr.audits['largest-contentful-paint-element']?.details),
    failedA11y: Object.values(lhr.audits)
      .filter((a) => a.score !== null && a.score < 1 && lhr.categories.accessibility?.auditRefs.some((r) => r.id === a.id))
      .map((a) => a.title),
  };
}

/** The LCP element's selector from Lighthouse's audit details (a table of tables in Lighthouse 12). */
function lcpElementOf(details: unknown): string {
  const found = JSON.stringify(details ?? {}).match(/"selector":"([^"]*)"/);
  return found?.[1] ?? '?';
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const line = (label: string, r: Pick<Run, 'performance' | 'accessibility' | 'tbt' | 'fcp' | 'lcp' | 'cls' | 'jsKb'>) =>
  `${label.padEnd(18)} perf ${String(r.performance).padStart(3)}  a11y ${String(r.accessibility).padStart(3)}  TBT ${r.tbt.toFixed(0).padStart(4)} ms  FCP ${(r.fcp / 1000).toFixed(2)} s  LCP ${(r.lcp / 1000).toFixed(2)} s  CLS ${r.cls.toFixed(3)}  JS ${r.jsKb.toFixed(1).padStart(6)} KB`;

const ceilingDir = await buildCeiling();
const app = await startServer({ env: { WEB_DIST: DIST } });
const ceiling = await startServer({ env: { WEB_DIST: ceilingDir } });
const runs: { app: Run[]; ceiling: Run[] } = { app: [], ceiling: [] };
try {
  for (let i = 1; i <= RUNS; i++) {
    const a = await measure(app.url, DIST);
    const c = await measure(ceiling.url, ceilingDir);
    runs.app.push(a);
    runs.ceiling.push(c);
    console.log(`${line(`run ${i} app`, a)}  LCP element ${a.lcpElement}`);
    console.log(`${line(`run ${i} ceiling`, c)}  LCP element ${c.lcpElement}`);
  }
  console.log('\nScripts of the first page (gzip):');
  for (const s of runs.app[0]!.scripts) console.log(`  ${s.file.padEnd(40)} ${s.kb.toFixed(1).padStart(7)} KB`);
  const med = (rs: Run[]) => ({
    performance: median(rs.map((r) => r.performance)),
    accessibility: median(rs.map((r) => r.accessibility)),
    tbt: median(rs.map((r) => r.tbt)),
    fcp: median(rs.map((r) => r.fcp)),
    lcp: median(rs.map((r) => r.lcp)),
    cls: median(rs.map((r) => r.cls)),
    jsKb: median(rs.map((r) => r.jsKb)),
  });
  const m = med(runs.app);
  console.log(`\nMedians of ${RUNS} runs:`);
  console.log(line('app', m));
  console.log(line('ceiling (React)', med(runs.ceiling)));
  console.log(`Goals: JS ≤ 150 KB gzip (${m.jsKb <= 150 ? 'met' : 'NOT met'}), performance ≥ 98 (${m.performance >= 98 ? 'met' : 'NOT met'}), accessibility 100 (${m.accessibility >= 100 ? 'met' : 'NOT met'}), TBT < 150 ms (${m.tbt < 150 ? 'met' : 'NOT met'})`);
  for (const t of new Set(runs.app.flatMap((r) => r.failedA11y))) console.log(`  accessibility: ${t}`);
} finally {
  chrome.kill();
  await Promise.all([app.stop(), ceiling.stop()]);
  rmSync(ceilingDir, { recursive: true, force: true });
}
