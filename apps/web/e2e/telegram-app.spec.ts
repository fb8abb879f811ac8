import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstServerId } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer, watchViolations } from './harness';
import { launchHash, NATIVE_BRIDGE, signInitData, TG_IOS_DARK, TG_IOS_LIGHT } from './telegram';

const BOT_TOKEN = '123456789:AAE-test-token-for-the-mini-app';
const REOPEN = 'Закройте и откройте приложение заново — войдём через Telegram сами';

const bodyColor = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

describe('the Telegram mini app in Chromium', () => {
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

  const initData = (id: number, ageS = 0) =>
    signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000) - ageS), query_id: 'AAH', user: JSON.stringify({ id, first_name: 'Гном', language_code: 'ru' }) });

  it('follows a change of Telegram’s theme mid-session at once, each time (night mode off, then on again)', async () => {
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    await page.goto(`${server.url}/${launchHash(initData(777000401), 'ios', TG_IOS_DARK)}`);
    // The page in secondary_bg_color: #1c1c1d at night, #efeff3 by day.
    await expect.poll(() => bodyColor(page)).toBe('rgb(28, 28, 29)');
    await page.waitForFunction(() => (window as unknown as { Telegram?: { WebView?: unknown } }).Telegram?.WebView !== undefined);
    // What Telegram's client sends as the player switches its theme.
    const themeChanged = (theme_params: Record<string, string>) =>
      page.evaluate(
        (p) => (window as unknown as { Telegram: { WebView: { receiveEvent(t: string, d: unknown): void } } }).Telegram.WebView.receiveEvent('theme_changed', { theme_params: p }),
        theme_params,
      );
    await themeChanged(TG_IOS_LIGHT);
    await expect.poll(() => bodyColor(page)).toBe('rgb(239, 239, 243)');
    expect(await page.evaluate(() => getComputedStyle(document.body).color)).toBe('rgb(0, 0, 0)');
    await themeChanged(TG_IOS_DARK);
    await expect.poll(() => bodyColor(page)).toBe('rgb(28, 28, 29)');
    await context.close();
  });

  it('the first paint inside Telegram has no bar of the app’s own (the app shows none there), its inline script running under the CSP', async () => {
    // Only the page as served: no module script runs, as in the moment before it has loaded.
    const first = async (inTelegram: boolean) => {
      const { context, page } = await newPage(browser, { width: 390, height: 800 });
      const violations = await watchViolations(page);
      if (inTelegram) await page.addInitScript(NATIVE_BRIDGE);
      await page.route(/\.js(\?.*)?$/, (route) => route.abort());
      await page.goto(`${server.url}/${launchHash(initData(777000402), 'ios', TG_IOS_DARK)}`);
      await page.locator('.boot-main h1').waitFor();
      const seen = {
        bar: await page.locator('.boot-bar').isVisible(),
        tg: await page.evaluate(() => document.documentElement.dataset.tg ?? null),
        // The inline script ran (its hash is in the CSP): Telegram's page colour from the first paint.
        color: await bodyColor(page),
        violations: await violations(),
      };
      await context.close();
      return seen;
    };
    expect(await first(true)).toEqual({ bar: false, tg: '1', color: 'rgb(28, 28, 29)', violations: [] });
    // Launch data pasted into an ordinary tab (no Telegram client) is no mini app: the bar stays, as the app's does.
    expect(await first(false)).toMatchObject({ bar: true, tg: null, violations: [] });
  });

  it('signed out inside the mini app (stale launch data), the wallet and the sign-in page say how to get back in, for good', async () => {
    const serverId = await firstServerId(server.db.kysely);
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    await page.addInitScript((id) => localStorage.setItem('gamesserver_id', id), String(serverId));
    // Launch data two hours old: the server refuses it (TELEGRAM_AUTH_MAX_AGE_S, an hour).
    await page.goto(`${server.url}/${launchHash(initData(777000403, 7200), 'ios', TG_IOS_LIGHT)}`);
    await expect.poll(() => page.getByText('Не удалось войти через Telegram: данные входа Telegram устарели.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('wallet-card').getByRole('alert').textContent()).toBe(`Вы не вошли. ${REOPEN}.`);
    expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();

    // The sign-in page: email and phone sign-in stay (a password account), Telegram's login page is not offered inside Telegram.
    await page.goto(`${server.url}/auth/login_methods/email`);
    await expect.poll(() => page.getByText(REOPEN).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Войти через Telegram' }).count()).toBe(0);
    expect(await page.locator('a[href*="oauth.telegram.org"]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Войти', exact: true }).count()).toBe(1);
    await context.close();
  });
});
