import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';
import { launchHash, NATIVE_BRIDGE, signInitData } from './telegram';

const BOT_TOKEN = '123456789:AAE-test-token-for-the-mini-app';

/** Records every CSP violation the page reports, and console errors that mention the policy. */
async function watchViolations(page: Page) {
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

describe('the app under its Content-Security-Policy', () => {
  let server: E2EServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot' } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('serves the CSP and runs under it with no violation, the saved dark theme applied from the first paint', async () => {
    const { context, page } = await newPage(browser);
    const violations = await watchViolations(page);
    await page.addInitScript(() => localStorage.setItem('theme', 'dark'));
    const res = await page.goto(server.url);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self' 'sha256-");
    expect(csp).toContain("frame-ancestors 'self' https://web.telegram.org");
    expect(res?.headers()['x-frame-options']).toBeUndefined();
    // React rendered the page (its scripts ran), and the inline theme script ran too (its hash is allowed).
    await expect.poll(() => page.locator('[data-view="app-bar"]').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.goto(`${server.url}/login`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).count()).toBeGreaterThan(0);
    expect(await violations()).toEqual([]);
    await context.close();
  });

  it('the mini app opens signed in from launch data without `signature` (older Telegram clients), with no violation', async () => {
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    const violations = await watchViolations(page);
    await page.addInitScript(NATIVE_BRIDGE);
    const user = JSON.stringify({ id: 777000222, first_name: 'Старый', language_code: 'ru' });
    const initData = signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000)), query_id: 'AAH', user }, { signature: false });
    expect(initData).not.toContain('signature');
    await page.goto(`${server.url}/${launchHash(initData)}`);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('access_token'))).not.toBeNull();
    const token = await page.evaluate(() => localStorage.getItem('access_token'));
    const me = await fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).name).toBe('Старый');
    expect(await violations()).toEqual([]);
    await context.close();
  });
});
