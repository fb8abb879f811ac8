import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/app';
import { seedDemoServers } from '../../server/src/modules/system/seed';
import { createTestDb, type TestDb, testConfig } from '../../server/test/harness';
import { launchBrowser, newPage, WEB_DIST } from './harness';

const TEXT = /\.(html|js|css|json|webmanifest)$/;
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Another build of the same app, as a deploy brings: a copy of the built web app in which every
 * file of assets/ has a new name, every reference to it (index.html, the chunks' imports of each
 * other, CSS, the service worker's list) names the new file, the .br and .gz beside each file are
 * made again from its new text (the server prefers them), and index.html carries `tag` in a meta
 * tag so the test can tell which build a page came from.
 */
function deployedBuild(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `adena-build-${tag}-`));
  cpSync(WEB_DIST, dir, { recursive: true });
  const assets = join(dir, 'assets');
  const names = readdirSync(assets).filter((n) => !/\.(br|gz)$/.test(n));
  const renamed = new Map(names.map((n) => [n, `${tag}_${n}`]));
  const any = new RegExp(`(?<=[/"'\`])(${[...renamed.keys()].sort((a, b) => b.length - a.length).map(escapeRe).join('|')})(?![\\w.-])`, 'g');
  for (const file of walk(dir).filter((f) => TEXT.test(f))) {
    let text = readFileSync(file, 'utf8').replace(any, (n) => renamed.get(n)!);
    if (file === join(dir, 'index.html')) text = text.replace('<head>', `<head><meta name="adena-build" content="${tag}">`);
    writeFileSync(file, text);
  }
  for (const [from, to] of renamed) {
    renameSync(join(assets, from), join(assets, to));
    for (const z of ['.br', '.gz']) rmSync(join(assets, from + z), { force: true });
  }
  // Every text file that had its compressed copies gets them again, from its new text.
  for (const file of walk(dir).filter((f) => /\.(br|gz)$/.test(f))) unlinkSync(file);
  for (const file of walk(dir).filter((f) => TEXT.test(f))) {
    const body = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(body));
    writeFileSync(`${file}.gz`, gzipSync(body));
  }
  return dir;
}

/** One app process serving `webDist` on `port` (0: any); a deploy is this process stopped and another started on the same port. */
async function serve(db: TestDb, dataDir: string, webDist: string, port = 0) {
  const app = await buildApp(testConfig({ DATA_DIR: dataDir, WEB_DIST: webDist, RATE_LIMIT_SCALE: '100' }), db);
  await app.listen({ port, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port };
}

/** Whether the page navigated from an app route to another in place (wouter follows pushState and popstate). */
const go = (page: Page, path: string) =>
  page.evaluate((p) => {
    history.pushState(null, '', p);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);

describe('a tab left open across a deploy', () => {
  let db: TestDb;
  let browser: Browser;
  let app: FastifyInstance | undefined;
  const dirs: string[] = [];

  beforeAll(async () => {
    db = await createTestDb('pglite');
    await seedDemoServers(db.kysely);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await db?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('reloads once when its next chunk is gone, renders the new build, and does not loop when that fails again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adena-e2e-'));
    dirs.push(dataDir);
    const [a, b, c] = ['a', 'b', 'c'].map((tag) => deployedBuild(tag));
    dirs.push(a!, b!, c!);
    let node = await serve(db, dataDir, a!);
    app = node.app;
    const url = `http://127.0.0.1:${node.port}`;

    const { page } = await newPage(browser);
    const documents: string[] = [];
    const missing: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'document' && r.frame() === page.mainFrame()) documents.push(r.url());
    });
    page.on('response', (r) => {
      if (r.status() === 404 && r.url().includes('/assets/')) missing.push(new URL(r.url()).pathname);
    });
    // Each chunk-load failure the page reports, and whether the app's handler took it (and reloaded).
    await page.addInitScript(() => {
      const w = window as unknown as { preloadErrors: boolean[] };
      w.preloadErrors = [];
      window.addEventListener('vite:preloadError', (e) => {
        setTimeout(() => w.preloadErrors.push(e.defaultPrevented), 0);
      });
    });
    const build = () => page.locator('meta[name="adena-build"]').getAttribute('content');

    await page.goto(url);
    await page.locator('#root *').first().waitFor();
    await page.waitForFunction(() => (window as unknown as { preloadErrors?: unknown[] }).preloadErrors !== undefined);
    expect(await build()).toBe('a');
    expect(documents).toHaveLength(1);

    // Deploy: the old process stops, the new build's process takes the port.
    await app.close();
    node = await serve(db, dataDir, b!, node.port);
    app = node.app;

    // The help page's chunk is not loaded yet; the tab still names build a's file, which is gone.
    await go(page, '/help');
    await page.waitForFunction(() => document.querySelector('meta[name="adena-build"]')?.getAttribute('content') === 'b');
    await page.getByRole('heading', { level: 1, name: 'Помощь' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/help');
    expect(documents).toEqual([`${url}/`, `${url}/help`]);
    expect(missing.some((p) => p.startsWith('/assets/a_'))).toBe(true);
    expect(missing.some((p) => p.startsWith('/assets/b_'))).toBe(false);

    // Another deploy at once: the next chunk is gone again, within the minute of the last reload.
    await app.close();
    node = await serve(db, dataDir, c!, node.port);
    app = node.app;
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    await go(page, '/sellers');
    await page.waitForFunction(() => (window as unknown as { preloadErrors: boolean[] }).preloadErrors.length > 0);
    expect(await page.evaluate(() => (window as unknown as { preloadErrors: boolean[] }).preloadErrors)).toEqual([false]);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(documents).toHaveLength(2);
    expect(await build()).toBe('b');
    expect(missing.some((p) => p.startsWith('/assets/b_'))).toBe(true);
  });
});
