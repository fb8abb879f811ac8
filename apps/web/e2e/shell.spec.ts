import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';
import { launchHash, NATIVE_BRIDGE, signInitData } from './telegram';

const BOT_TOKEN = '123456789:AAE-test-token-for-the-mini-app';

describe('the app shell', () => {
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

  it('has footer buttons with Russian tooltips that lead to their pages, and the copyright years', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(server.url);
    const year = new Date().getFullYear();
    expect(await page.getByTestId('copyright').textContent()).toContain(`2018–${year}`);
    for (const [title, path, heading] of [
      ['Помощь', '/help', 'Помощь'],
      ['Контакты', '/contacts', 'Контакты'],
      ['О нас', '/about', 'О нас'],
    ] as const) {
      // In a navigation landmark of its own, named, so a screen reader's list of regions offers it.
      const button = page.getByRole('navigation', { name: 'О сервисе' }).getByRole('link', { name: title });
      await button.hover();
      await expect.poll(() => page.getByRole('tooltip').textContent()).toBe(title);
      await button.click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(path);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
    }
    await context.close();
  });

  it('opens every route, and a Russian 404 for an unknown one', async () => {
    const { context, page } = await newPage(browser);
    for (const [path, heading] of [
      ['/', 'Кошелёк адены'],
      ['/help', 'Помощь'],
      ['/contacts', 'Контакты'],
      ['/about', 'О нас'],
      ['/auth/login_methods/email', 'Вход'],
      ['/no/such/page', 'Страница не найдена'],
    ] as const) {
      await page.goto(server.url + path);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent()).toBe(heading);
    }
    await context.close();
  });

  it('never sends a player the admin area\'s code, even at /admin; an operator gets it there', async () => {
    /** Signs in as the user and returns every script body the page downloads from then on. */
    const visit = async (admin: boolean) => {
      const user = await createUser(server.db.kysely, { admin });
      const { context, page } = await newPage(browser);
      await context.addInitScript((token) => localStorage.setItem('access_token', token), user.token);
      const scripts: Array<Promise<string>> = [];
      page.on('response', (r) => {
        if (r.request().resourceType() === 'script') scripts.push(r.text().catch(() => ''));
      });
      return { context, page, scripts };
    };
    // admin.tsx marks its root with data-view="admin-area"; no other module has that string.
    const hasAdminCode = async (scripts: Array<Promise<string>>) => (await Promise.all(scripts)).some((body) => body.includes('admin-area'));

    const player = await visit(false);
    await player.page.goto(server.url);
    await player.page.getByRole('tab', { name: 'Коды' }).click();
    // The selected tab's content is its panel, named by the tab (a screen reader says where it is).
    await player.page.getByRole('tabpanel', { name: 'Коды' }).waitFor();
    expect(await player.page.getByRole('tab', { name: 'Коды' }).getAttribute('aria-controls')).toBe('home-panel-codes');
    await player.page.getByRole('tab', { name: 'История' }).click();
    await player.page.getByRole('tabpanel', { name: 'История' }).waitFor();
    expect(await player.page.getByRole('tabpanel').count()).toBe(1);
    await player.page.goto(`${server.url}/help`);
    await expect.poll(() => player.page.getByRole('heading', { level: 1 }).textContent()).toBe('Помощь');
    await player.page.goto(`${server.url}/admin`);
    await expect.poll(() => player.page.getByRole('alert').textContent()).toBe('Этот раздел доступен только операторам сервиса.');
    expect(player.scripts.length).toBeGreaterThan(3);
    expect(await hasAdminCode(player.scripts)).toBe(false);
    await player.context.close();
    // Nor does the service worker fetch it in the background: it is not in the pre-cache list.
    const worker = await (await fetch(`${server.url}/sw.js`)).text();
    expect(worker).toMatch(/assets\/boot-/);
    expect(worker).not.toMatch(/assets\/admin-/);

    const operator = await visit(true);
    await operator.page.goto(`${server.url}/admin`);
    await expect.poll(() => operator.page.locator('[data-view="admin-area"]').count()).toBe(1);
    expect(await hasAdminCode(operator.scripts)).toBe(true);
    await operator.context.close();
  });

  it('follows the system colour scheme, and a saved choice wins over it', async () => {
    const background = (page: import('playwright-core').Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await newPage(browser, { colorScheme: 'dark' });
    await dark.page.goto(server.url);
    expect(await background(dark.page)).toBe('rgb(15, 18, 22)');
    // The saved choice: the toggle in the app bar, kept across reloads.
    await dark.page.getByRole('button', { name: 'Включить светлую тему' }).click();
    // At once, not only after a reload: index.html's first-paint dark colours do not outlast the choice.
    await expect.poll(() => background(dark.page)).toBe('rgb(246, 243, 236)');
    await dark.page.reload();
    expect(await background(dark.page)).toBe('rgb(246, 243, 236)');
    await dark.context.close();

    const light = await newPage(browser, { colorScheme: 'light' });
    await light.page.goto(server.url);
    expect(await background(light.page)).toBe('rgb(246, 243, 236)');
    await light.context.close();
  });

  it('inside Telegram: takes Telegram’s colours, hides the app bar, and the back button goes back', async () => {
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    const user = JSON.stringify({ id: 777000111, first_name: 'Гном', username: 'gnome', language_code: 'ru' });
    const initData = signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000)), query_id: 'AAH', user });
    await page.goto(`${server.url}/${launchHash(initData)}`);
    // The page in Telegram's secondary_bg_color (#232e3c), as its own settings screens.
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(35, 46, 60)');
    expect(await page.locator('[data-view="app-bar"]').count()).toBe(0);
    const events = () => page.evaluate(() => (window as unknown as { __tgEvents: Array<{ type: string; data: unknown }> }).__tgEvents);
    // What Telegram's client does on a back-button tap, once the SDK has set up its event receiver.
    const pressBack = async () => {
      await page.waitForFunction(() => (window as unknown as { Telegram?: { WebView?: unknown } }).Telegram?.WebView !== undefined);
      await page.evaluate(() => (window as unknown as { Telegram: { WebView: { receiveEvent(t: string): void } } }).Telegram.WebView.receiveEvent('back_button_pressed'));
    };
    await expect.poll(async () => (await events()).map((e) => e.type)).toEqual(expect.arrayContaining(['web_app_ready', 'web_app_expand']));
    // Signed in through /api/web_app without being asked: the token works and belongs to this Telegram user.
    await expect.poll(() => page.evaluate(() => localStorage.getItem('access_token'))).not.toBeNull();
    const token = await page.evaluate(() => localStorage.getItem('access_token'));
    const me = await fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    const row = await server.db.kysely.selectFrom('users').select('id').where('telegram_id', '=', 777000111n).executeTakeFirst();
    expect(row?.id).toBe((await me.json()).id);

    // Off the root the back button shows; pressing it goes one step back.
    await page.locator('footer').getByRole('link', { name: 'Помощь' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/help');
    await expect
      .poll(async () => (await events()).filter((e) => e.type === 'web_app_setup_back_button').at(-1)?.data)
      .toEqual({ is_visible: true });
    await pressBack();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await expect
      .poll(async () => (await events()).filter((e) => e.type === 'web_app_setup_back_button').at(-1)?.data)
      .toEqual({ is_visible: false });

    // A reload inside the mini app (the hash is gone) is still the mini app.
    await page.goto(`${server.url}/about`);
    // The app has shown the back button (and, in the same effects, listens to it): only then is a
    // tap on it the app's to answer, and only then does «no app bar» say something (the page has rendered).
    await expect
      .poll(async () => (await events()).filter((e) => e.type === 'web_app_setup_back_button').at(-1)?.data)
      .toEqual({ is_visible: true });
    expect(await page.locator('[data-view="app-bar"]').count()).toBe(0);
    // With no history to go back to, the back button goes home.
    await pressBack();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await context.close();
  });

  it('registers the service worker at /sw.js and reloads offline with the last known balance and a notice', async () => {
    const player = await createUser(server.db.kysely);
    const serverId = await firstServerId(server.db.kysely);
    await fund(server.db.kysely, await createWallet(server.db.kysely, player.id, serverId), 2_500_000n);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'ru-RU', serviceWorkers: 'allow' });
    await context.addInitScript(
      ({ token, id }) => {
        if (!localStorage.getItem('access_token')) {
          localStorage.setItem('access_token', token);
          localStorage.setItem('gamesserver_id', id);
        }
      },
      { token: player.token, id: String(serverId) },
    );
    const page = await context.newPage();
    await page.goto(server.url);
    await expect.poll(() => page.getByTestId('balance').textContent()).toMatch(/2\s500\s000/);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL);
    expect(scope).toBe(`${server.url}/sw.js`);
    // Wait until the worker controls the page, so the reload below is served by it.
    await page.reload();
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    expect(await page.getByTestId('offline-notice').count()).toBe(0);
    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent()).toBe('Кошелёк адены');
    await expect.poll(() => page.getByTestId('offline-notice').textContent()).toMatch(/Нет связи/);
    expect(await page.getByTestId('balance').textContent()).toMatch(/2\s500\s000/);
    await context.close();
  });
});

describe('the app shell under another BRAND_NAME', () => {
  let server: E2EServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ env: { BRAND_NAME: 'L2 Bank' } }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('names the service from the first paint (no script yet), in the installed app and in the page the worker keeps for offline', async () => {
    const bare = await browser.newContext({ javaScriptEnabled: false });
    const first = await bare.newPage();
    await first.goto(server.url);
    expect(await first.title()).toBe('L2 Bank');
    expect(await first.locator('.boot-bar').textContent()).toBe('L2 Bank');
    expect(await first.locator('meta[property="og:site_name"]').getAttribute('content')).toBe('L2 Bank');
    await bare.close();

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'ru-RU', serviceWorkers: 'allow' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(server.url);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await page.title()).toContain('L2 Bank');
    const manifest = await page.evaluate(async () => (await fetch(document.querySelector<HTMLLinkElement>('link[rel="manifest"]')!.href)).json());
    expect(manifest).toMatchObject({ name: 'L2 Bank', short_name: 'L2 Bank', start_url: '/' });
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    // The inline theme script still runs under the page's CSP (its hash is of the built page's script).
    expect(problems).toEqual([]);
    await context.setOffline(true);
    await page.goto(`${server.url}/history`);
    await expect.poll(() => page.locator('.boot-bar, header').first().textContent()).toContain('L2 Bank');
    expect(await page.title()).toContain('L2 Bank');
    await context.close();
  });
});
