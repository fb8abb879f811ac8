import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../server/src/app';
import { seedDemoServers } from '../../server/src/modules/system/seed';
import { createTestDb, type TestDb, testConfig } from '../../server/test/harness';
import type { FastifyInstance } from 'fastify';

export const WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');

export interface E2EServer {
  url: string;
  app: FastifyInstance;
  db: TestDb;
  dataDir: string;
  close(): Promise<void>;
}

/** The real server serving the built web app, on a loopback port, with a fresh database. */
export async function startServer(opts: { kind?: 'pglite' | 'postgres'; env?: Record<string, string> } = {}): Promise<E2EServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adena-e2e-'));
  const db = await createTestDb(opts.kind ?? 'pglite');
  await seedDemoServers(db.kysely);
  // Every browser context of a test comes from one loopback address, standing in for many players:
  // the per-address call limits (tested on the server) are scaled out of the way, as in the benchmarks.
  const config = testConfig({ DATA_DIR: dataDir, WEB_DIST, RATE_LIMIT_SCALE: '100', ...opts.env });
  const app = await buildApp(config, db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    dataDir,
    async close() {
      await app.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

export async function newPage(
  browser: Browser,
  opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    colorScheme: opts.colorScheme ?? 'light',
    locale: 'ru-RU',
    serviceWorkers: 'block',
  });
  const page = await context.newPage();
  return { context, page };
}

/** Records every CSP violation the page reports, and console errors that mention the policy. */
export async function watchViolations(page: Page) {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __csp: string[] }).__csp ??= [];
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return async () => [...seen, ...((await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp)) ?? [])];
}
