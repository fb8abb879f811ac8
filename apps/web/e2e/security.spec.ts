import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, firstServerId } from '../../server/test/factories';
import { startDiscord } from '../../server/test/fakes/discord';
import { signWidget } from '../../server/test/fakes/telegram';
import { type E2EServer, launchBrowser, newPage, startServer, watchViolations } from './harness';
import { launchHash, NATIVE_BRIDGE, nativeBridge, signInitData, TG_IOS_DARK, TG_IOS_LIGHT, TG_THEME } from './telegram';

const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots');
const BOT_TOKEN = '123456789:AAE-test-token-for-the-mini-app';

describe('the app under its Content-Security-Policy', () => {
  let server: E2EServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', SUPPORT_TELEGRAM: '@l2bank_help' } }),
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

  it('the profile and the operators\' area run with no violation: zod does not probe `eval` (Chromium walk, 2026-11-29)', async () => {
    const operator = await createUser(server.db.kysely, { admin: true });
    const { context, page } = await newPage(browser);
    const violations = await watchViolations(page);
    await context.addInitScript((t) => localStorage.setItem('access_token', t), operator.token);
    for (const path of ['/profile', '/admin', '/admin/servers']) {
      await page.goto(`${server.url}${path}`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).count()).toBeGreaterThan(0);
    }
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

  it('inside the mini app «Подключить Telegram» opens the bot in Telegram itself, not as a web page', async () => {
    const sid = await firstServerId(server.db.kysely);
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    await page.addInitScript((s) => localStorage.setItem('gamesserver_id', s), String(sid));
    const user = JSON.stringify({ id: 777000444, first_name: 'Подписчик', language_code: 'ru' });
    const initData = signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000)), query_id: 'AAH', user });
    await page.goto(`${server.url}/?tab=codes${launchHash(initData)}`);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('access_token'))).not.toBeNull();
    const pages = context.pages().length;
    await page.getByRole('button', { name: 'Уведомления в Telegram' }).click();
    await page.getByRole('link', { name: 'Подключить Telegram' }).click();
    const opened = () =>
      page.evaluate(() => (window as unknown as { __tgEvents: Array<{ type: string; data: { path_full?: string } | null }> }).__tgEvents.filter((e) => e.type === 'web_app_open_tg_link'));
    await expect.poll(async () => (await opened()).length).toBe(1);
    expect((await opened())[0]!.data!.path_full).toMatch(/^\/adena_test_bot\?start=[\w-]{20,64}$/);
    expect(context.pages().length).toBe(pages);
    await context.close();
  });

  it('inside the mini app the support chat on «Контакты» opens in Telegram itself, not as a web page', async () => {
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    const user = JSON.stringify({ id: 777000555, first_name: 'Спрашивающий', language_code: 'ru' });
    const initData = signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000)), query_id: 'AAH', user });
    await page.goto(`${server.url}/contacts${launchHash(initData)}`);
    const pages = context.pages().length;
    await page.getByTestId('support-telegram').click();
    const opened = () =>
      page.evaluate(() => (window as unknown as { __tgEvents: Array<{ type: string; data: { path_full?: string } | null }> }).__tgEvents.filter((e) => e.type === 'web_app_open_tg_link'));
    await expect.poll(async () => (await opened()).length).toBe(1);
    expect((await opened())[0]!.data!.path_full).toBe('/l2bank_help');
    expect(context.pages().length).toBe(pages);
    await context.close();
  });

  it('inside the mini app the page and cards take Telegram’s colours as its own settings screens do, day and night, clear of its safe areas', async () => {
    const sid = await firstServerId(server.db.kysely);
    // Full screen on an iPhone: the status bar (47), Telegram's own controls under it (46), the home indicator (34).
    const safeArea = { top: 47, right: 0, bottom: 34, left: 0 };
    const contentSafeArea = { top: 46, right: 0, bottom: 0, left: 0 };
    for (const [i, theme] of [TG_IOS_LIGHT, TG_IOS_DARK].entries()) {
      // The device's own scheme as the theme's: index.html's first-paint colours for it must not stay.
      const { context, page } = await newPage(browser, { width: 390, height: 844, colorScheme: theme === TG_IOS_DARK ? 'dark' : 'light' });
      await page.addInitScript(nativeBridge(safeArea, contentSafeArea));
      await page.addInitScript((s) => localStorage.setItem('gamesserver_id', s), String(sid));
      const user = JSON.stringify({ id: 777000600 + i, first_name: 'Ася', language_code: 'ru' });
      const initData = signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000)), query_id: 'AAH', user });
      await page.goto(`${server.url}/${launchHash(initData, 'ios', theme)}`);
      const card = page.getByTestId('wallet-card');
      await card.waitFor();

      // The page is secondary_bg_color, the card on it section_bg_color: it stands out.
      await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(rgb(theme.secondary_bg_color));
      const cardBg = await card.evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(cardBg).toBe(rgb(theme.section_bg_color));
      expect(cardBg).not.toBe(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
      // Telegram's header in the page's colour. Polled: the page's colours come from index.html's first paint,
      // before the Telegram script that tells the header loads (a CI run read the events before it had).
      const headerColours = () =>
        page.evaluate(() =>
          (window as unknown as { __tgEvents: Array<{ type: string; data: unknown }> }).__tgEvents.filter((e) => e.type === 'web_app_set_header_color'),
        );
      await expect.poll(headerColours).toContainEqual({ type: 'web_app_set_header_color', data: { color_key: 'secondary_bg_color' } });

      // The content starts below Telegram's controls, and the footer ends above the home indicator.
      const top = safeArea.top + contentSafeArea.top;
      await expect.poll(() => page.locator('[data-view="main-content"]').evaluate((el) => el.getBoundingClientRect().top)).toBe(top);
      const below = await page.locator('footer').evaluate((el) => document.documentElement.scrollHeight - (el.getBoundingClientRect().bottom + window.scrollY));
      expect(below).toBeCloseTo(safeArea.bottom, 0);
      // A full-screen dialog (a phone) keeps its title and buttons clear of them too.
      await card.getByRole('button', { name: 'Пополнить' }).click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByRole('heading').evaluate((el) => el.getBoundingClientRect().top)).toBeGreaterThanOrEqual(top);
      const actions = await dialog.getByRole('button', { name: 'Отмена' }).evaluate((el) => window.innerHeight - el.getBoundingClientRect().bottom);
      expect(actions).toBeGreaterThanOrEqual(safeArea.bottom);
      await context.close();
    }
  });

  it('in an ordinary browser nothing moves for safe areas that are not there', async () => {
    const { context, page } = await newPage(browser, { width: 1280, height: 900 });
    await page.goto(`${server.url}/help`);
    const appBar = page.locator('[data-view="app-bar"]');
    await appBar.waitFor();
    expect(await appBar.evaluate((el) => [el.getBoundingClientRect().top, getComputedStyle(el).paddingTop])).toEqual([0, '0px']);
    const shell = await page.evaluate(() => getComputedStyle(document.querySelector('#root > div')!).padding);
    expect(shell).toBe('0px');
    await context.close();
  });

  it('launch data too old to accept says why in the mini app, and leaves the visitor signed out', async () => {
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    const user = JSON.stringify({ id: 777000333, first_name: 'Опоздавший', language_code: 'ru' });
    const initData = signInitData(BOT_TOKEN, { auth_date: String(Math.floor(Date.now() / 1000) - 3 * 3600), query_id: 'AAH', user });
    await page.goto(`${server.url}/${launchHash(initData)}`);
    await page.getByText(/^Не удалось войти через Telegram: /).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
    await context.close();
  });
});

/** `#rrggbb` as getComputedStyle reports it. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** Every POST the page sends to these API paths, in order. */
function watchPosts(page: Page, paths: string[]) {
  const sent: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (r.method() === 'POST' && paths.includes(path)) sent.push(path);
  });
  return sent;
}

const token = (page: Page) => page.evaluate(() => localStorage.getItem('access_token'));

async function nameOf(server: E2EServer, accessToken: string | null) {
  const me = await fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${accessToken}` } });
  return me.status === 200 ? ((await me.json()) as { name: string }).name : null;
}

/** What Telegram's login page appends to return_to: the signed widget fields, base64 JSON. */
function tgAuthResult(fields: Record<string, string | number>) {
  return Buffer.from(JSON.stringify(signWidget(fields, BOT_TOKEN))).toString('base64');
}

describe('sign-in links bound to the tab, and launch data only inside Telegram', () => {
  let server: E2EServer;
  let browser: Browser;
  let discord: Awaited<ReturnType<typeof startDiscord>>;
  const now = () => Math.floor(Date.now() / 1000);
  beforeAll(async () => {
    discord = await startDiscord({ id: 'e2e-client', secret: 'e2e-secret' });
    [server, browser] = await Promise.all([
      startServer({
        env: {
          TELEGRAM_BOT_TOKEN: BOT_TOKEN,
          TELEGRAM_BOT_USERNAME: 'adena_test_bot',
          DISCORD_CLIENT_ID: 'e2e-client',
          DISCORD_CLIENT_SECRET: 'e2e-secret',
          DISCORD_API_URL: discord.url,
          DISCORD_AUTHORIZE_URL: 'https://discord.test/oauth2/authorize',
        },
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await discord?.close();
  });

  it('a page opened with #tgWebAppData in an ordinary browser tab does not sign in', async () => {
    const { context, page } = await newPage(browser);
    const posts = watchPosts(page, ['/api/web_app']);
    const user = JSON.stringify({ id: 777000301, first_name: 'Чужой', language_code: 'ru' });
    const initData = signInitData(BOT_TOKEN, { auth_date: String(now()), query_id: 'AAH', user });
    await page.goto(`${server.url}/${launchHash(initData)}`);
    // The app bar shows: the app took this tab for an ordinary browser from the first render.
    await expect.poll(() => page.locator('[data-view="app-bar"]').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('link', { name: /Войти/ }).count()).toBeGreaterThan(0);
    expect(posts).toEqual([]);
    expect(await token(page)).toBeNull();
    expect(await page.evaluate(() => sessionStorage.getItem('aw/tgInitData'))).toBeNull();
    // The same launch data is still fresh: the server would have taken it (so the refusal above was the web app's).
    const direct = await fetch(`${server.url}/api/web_app`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ init_data: initData }) });
    expect(direct.status).toBe(200);
    await context.close();
  });

  it('someone else’s #tgAuthResult link does not sign in a tab that never asked; the tab that asked signs in', async () => {
    const fields = { id: 777000302, first_name: 'Злоумышленник', auth_date: now() };
    const { context, page } = await newPage(browser);
    const posts = watchPosts(page, ['/api/telegram_auth']);
    await page.goto(`${server.url}/auth/telegram/callback#tgAuthResult=${tgAuthResult(fields)}`);
    await expect.poll(() => page.getByText('Этот вход через Telegram начат не в этой вкладке').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'К другим способам входа' }).getAttribute('href')).toBe('/auth/login_methods/email');
    // A nonce of its own making in the link does not help either: the tab kept none.
    await page.goto(`${server.url}/auth/telegram/callback?state=guess#tgAuthResult=${tgAuthResult(fields)}`);
    await expect.poll(() => page.getByText('Этот вход через Telegram начат не в этой вкладке').count()).toBe(1);
    expect(posts).toEqual([]);
    expect(await token(page)).toBeNull();

    // The player's own sign-in: the button leaves for Telegram's login page, which returns to return_to with the result.
    const own = { id: 777000303, first_name: 'Владелец', auth_date: now() };
    await page.route('https://oauth.telegram.org/**', (route) => {
      const returnTo = new URL(route.request().url()).searchParams.get('return_to') ?? '';
      return route.fulfill({ status: 302, headers: { location: `${returnTo}#tgAuthResult=${tgAuthResult(own)}` } });
    });
    await page.goto(`${server.url}/auth/login_methods/email`);
    await page.getByRole('link', { name: 'Войти через Telegram' }).click();
    await expect.poll(() => token(page)).not.toBeNull();
    expect(posts).toEqual(['/api/telegram_auth']);
    expect(await nameOf(server, await token(page))).toBe('Владелец');
    await context.close();
  });

  it('a Discord callback with a state this tab did not start is refused before any call; the tab that started it signs in', async () => {
    const { context, page } = await newPage(browser);
    const posts = watchPosts(page, ['/api/discord_auth']);
    // The attacker's own authorize URL (state and code issued to the attacker's browser).
    const attackerConfig = (await (await fetch(`${server.url}/api/auth_config`)).json()) as { discord: { authorize_url: string } };
    const grant = discord.authorize({ id: '9001', username: 'attacker', email: 'a@example.com', verified: true }, attackerConfig.discord.authorize_url);
    await page.goto(`${server.url}/auth/discord/callback?code=${grant.code}&state=${grant.state}`);
    await expect.poll(() => page.getByText('Этот вход через Discord начат не в этой вкладке').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'К другим способам входа' }).count()).toBe(1);
    expect(posts).toEqual([]);
    expect(await token(page)).toBeNull();

    // The player's own: discord.test plays Discord approving and redirecting back with this tab's state.
    await page.route('https://discord.test/**', (route) => {
      const own = discord.authorize({ id: '9002', username: 'owner', global_name: 'Хозяин', email: 'o@example.com', verified: true }, route.request().url());
      return route.fulfill({ status: 302, headers: { location: `${own.redirect_uri}?code=${own.code}&state=${own.state}` } });
    });
    await page.goto(`${server.url}/auth/login_methods/email`);
    await page.getByRole('link', { name: 'Войти через Discord' }).click();
    await expect.poll(() => token(page)).not.toBeNull();
    expect(posts).toEqual(['/api/discord_auth']);
    expect(await nameOf(server, await token(page))).toBe('Хозяин');
    await context.close();
  });

  it('sign-up: the strength meter downloads zxcvbn only once the password field is used, and a common password is refused on the field', async () => {
    const { context, page } = await newPage(browser);
    const scripts: string[] = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script') scripts.push(r.url());
    });
    // zxcvbn's code is the only script with this method name.
    const zxcvbnLoaded = async () => {
      for (const url of scripts) if ((await (await fetch(url)).text()).includes('checkAsync')) return true;
      return false;
    };
    await page.goto(`${server.url}/auth/register/email`);
    await page.getByLabel('Электронная почта').fill('strength@example.com');
    await page.getByLabel('Имя (необязательно)').fill('Силач');
    await page.waitForLoadState('networkidle');
    expect(scripts.length).toBeGreaterThan(0);
    expect(await zxcvbnLoaded()).toBe(false);

    const password = page.getByLabel('Пароль', { exact: true });
    await password.fill('qwerty12');
    await expect.poll(() => page.getByTestId('password-strength').textContent()).toMatch(/^Пароль: (очень слабый|слабый)$/);
    expect(await zxcvbnLoaded()).toBe(true);
    await password.fill('Тёмный-лес-37-рубит-дрова!');
    await expect.poll(() => page.getByTestId('password-strength').textContent()).toBe('Пароль: надёжный');
    await password.fill('');
    await expect.poll(() => page.getByTestId('password-strength').count()).toBe(0);

    // The server refuses a common password; its message shows under the password field.
    await password.fill('Password1');
    await page.getByLabel('Повторите пароль').fill('Password1');
    await page.getByRole('button', { name: 'Получить код' }).click();
    const field = page.locator('.MuiFormControl-root', { has: password });
    await expect.poll(() => field.textContent()).toContain('Этот пароль слишком распространён, его подберут первым');
    // Typing another password takes the refusal away (it was about the one sent).
    await password.fill('Password12');
    await expect.poll(() => field.textContent()).not.toContain('распространён');
    await password.fill('Password1');
    expect(await field.textContent()).toContain('распространён');
    if (process.env.SCREENSHOTS) {
      for (const [w, scheme] of [[390, 'light'], [390, 'dark'], [1280, 'light'], [1280, 'dark']] as const) {
        await page.setViewportSize({ width: w, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await password.fill('Тёмный-лес');
        await expect.poll(() => page.getByTestId('password-strength').count()).toBe(1);
        await page.screenshot({ path: resolve(SCREENSHOTS, `password-strength-${w}-${scheme}.png`), animations: 'disabled' });
      }
    }
    await context.close();
  });

  it('inside Telegram: opens signed in, and asks before replacing a different signed-in user', async () => {
    const signedIn = async (id: number, first_name: string) => {
      const init = signInitData(BOT_TOKEN, { auth_date: String(now()), query_id: 'AAH', user: JSON.stringify({ id, first_name, language_code: 'ru' }) });
      const res = await fetch(`${server.url}/api/web_app`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ init_data: init }) });
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const other = await signedIn(777000304, 'Прежний');
    const { context, page } = await newPage(browser, { width: 390, height: 800 });
    await page.addInitScript(NATIVE_BRIDGE);
    const posts = watchPosts(page, ['/api/web_app']);
    await page.goto(`${server.url}/help`);
    await page.evaluate((t) => localStorage.setItem('access_token', t), other);

    const launch = signInitData(BOT_TOKEN, {
      auth_date: String(now()),
      query_id: 'AAH',
      user: JSON.stringify({ id: 777000305, first_name: 'Новый', last_name: 'Игрок', language_code: 'ru' }),
    });
    await page.goto(`${server.url}/${launchHash(launch)}`);
    const dialog = page.getByTestId('telegram-switch-dialog');
    await expect.poll(() => dialog.getByRole('heading').textContent()).toBe('Войти как Новый Игрок?');
    expect(await dialog.textContent()).toContain('Сейчас вы вошли как Прежний');
    expect(posts).toEqual([]);
    expect(await token(page)).toBe(other);
    if (process.env.SCREENSHOTS) await page.screenshot({ path: resolve(SCREENSHOTS, 'telegram-switch-390.png'), animations: 'disabled' });

    await dialog.getByRole('button', { name: 'Войти' }).click();
    await expect.poll(() => token(page)).not.toBe(other);
    expect(posts).toEqual(['/api/web_app']);
    const mine = await token(page);
    expect(await nameOf(server, mine)).toBe('Новый Игрок');
    expect(await nameOf(server, other)).toBe('Прежний'); // the other session was not touched, only this app left it

    // Opened again by the same Telegram user: stays signed in without asking or calling again.
    await page.reload();
    // Both what the choice depends on have come: the SDK (Telegram's colours are applied with it) and who is signed in;
    // then whatever the choice would load (the dialog's code, a sign-in call) has had its turn.
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(rgb(TG_THEME.secondary_bg_color));
    await expect.poll(() => page.locator('footer').getByRole('link', { name: 'Профиль' }).count()).toBe(1);
    await page.waitForLoadState('networkidle');
    expect(await page.getByTestId('telegram-switch-dialog').count()).toBe(0);
    expect(await token(page)).toBe(mine);
    expect(posts).toEqual(['/api/web_app']);

    // With nobody signed in, the launch signs in at once (no question).
    await page.evaluate(() => localStorage.clear());
    const fresh = signInitData(BOT_TOKEN, { auth_date: String(now()), query_id: 'AAI', user: JSON.stringify({ id: 777000306, first_name: 'Гость', language_code: 'ru' }) });
    await page.goto(`${server.url}/contacts${launchHash(fresh)}`);
    await expect.poll(() => token(page)).not.toBeNull();
    expect(await nameOf(server, await token(page))).toBe('Гость');
    expect(await page.getByTestId('telegram-switch-dialog').count()).toBe(0);
    await context.close();
  });
});
