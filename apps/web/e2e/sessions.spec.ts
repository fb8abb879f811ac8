import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/src/lib/password';
import { hashToken, newToken } from '../../server/src/lib/tokens';
import { createUser } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const PASSWORD = 'first password 1';
const NEW_PASSWORD = 'second password 2';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const WINDOWS_YANDEX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 YaBrowser/24.4.0.0 Safari/537.36';

async function player(server: E2EServer) {
  const user = await createUser(server.db.kysely);
  await server.db.kysely.updateTable('users').set({ password_hash: await hashPassword(PASSWORD) }).where('id', '=', user.id).execute();
  return user;
}

/** Signs in through the login form, as a player does. */
async function signIn(page: Page, server: E2EServer, email: string) {
  await page.goto(`${server.url}/auth/login_methods/email`);
  await page.getByLabel('Электронная почта').fill(email);
  await page.getByLabel('Пароль').fill(PASSWORD);
  await page.getByRole('button', { name: 'Войти', exact: true }).click();
  await page.waitForURL(`${server.url}/`);
}

const live = (page: Page) =>
  expect.poll(() => page.getByTestId('realtime-indicator').getAttribute('data-state'), { timeout: 15_000 }).toBe('connected');
const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem('access_token'));

describe('a player’s sessions and password, in the profile', () => {
  let server: E2EServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  it('sees their devices, ends the phone’s session (the phone is told and signed out), and changes the password', async () => {
    const user = await player(server);
    const desk = await newPage(browser);
    contexts.push(desk.context);
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: IPHONE, locale: 'ru-RU', serviceWorkers: 'block' });
    contexts.push(phone);
    const phonePage = await phone.newPage();

    await signIn(phonePage, server, user.email!);
    await live(phonePage);
    await signIn(desk.page, server, user.email!);
    await desk.page.goto(`${server.url}/profile`);

    const sessions = desk.page.getByTestId('session');
    await expect.poll(() => sessions.count()).toBe(3); // the factory's, the phone's and this one
    const current = sessions.filter({ hasText: 'Этот сеанс' });
    await expect.poll(() => current.textContent()).toContain('Вход по почте и паролю');
    const iphone = sessions.filter({ hasText: 'Safari на iPhone' });
    expect(await iphone.count()).toBe(1);

    // End the phone's session: it disappears here, and the phone learns it at once.
    await iphone.getByRole('button', { name: /Завершить сеанс/ }).click();
    await expect.poll(() => sessions.filter({ hasText: 'Safari на iPhone' }).count()).toBe(0);
    await expect.poll(() => phonePage.getByText('Этот сеанс завершён с другого устройства').count(), { timeout: 5000 }).toBe(1);
    expect(await storedToken(phonePage)).toBeNull();
    await expect.poll(() => phonePage.getByRole('button', { name: 'Профиль' }).count()).toBe(0);

    // A wrong current password is refused under its field; the right one changes it.
    const tokenBefore = await storedToken(desk.page);
    // The form, not the passkeys section below it, which asks for the current password too.
    const changeForm = desk.page.getByRole('form', { name: 'Смена пароля' });
    await changeForm.getByLabel('Текущий пароль').fill('not my password');
    await changeForm.getByLabel('Новый пароль', { exact: true }).fill(NEW_PASSWORD);
    await changeForm.getByLabel('Новый пароль ещё раз').fill(NEW_PASSWORD);
    await desk.page.getByRole('button', { name: 'Сменить пароль' }).click();
    await expect.poll(() => desk.page.getByText('Неверный текущий пароль').count()).toBe(1);
    await changeForm.getByLabel('Текущий пароль').fill(PASSWORD);
    await desk.page.getByRole('button', { name: 'Сменить пароль' }).click();
    await expect.poll(() => desk.page.getByText('Пароль изменён. Все другие сеансы завершены').count()).toBe(1);
    // Still signed in here, under a new token; every other session (the factory's) ended.
    await expect.poll(() => storedToken(desk.page)).not.toBe(tokenBefore);
    await expect.poll(() => sessions.count()).toBe(1);
    await desk.page.reload();
    await expect.poll(() => desk.page.getByTestId('session').count()).toBe(1);
    const login = await server.app.inject({ method: 'POST', url: '/api/login', payload: { email: user.email, password: NEW_PASSWORD } });
    expect(login.statusCode).toBe(200);
  });

  it('a tab opened again after its session was ended from another device says why it is signed out', async () => {
    const user = await player(server);
    const tab = await newPage(browser, { width: 390, height: 844 });
    contexts.push(tab.context);
    await signIn(tab.page, server, user.email!);
    const token = await storedToken(tab.page);
    await tab.page.close();
    // Ended while no tab was open (its socket closed): nothing told the browser.
    const ended = await server.app.inject({ method: 'GET', url: '/api/logout', headers: { authorization: `Bearer ${token}` } });
    expect(ended.statusCode).toBe(200);
    const again = await tab.context.newPage();
    await again.goto(`${server.url}/`);
    await expect.poll(() => again.getByText('Сеанс завершён. Войдите снова').count()).toBe(1);
    expect(await storedToken(again)).toBeNull();
  });

  it('the security section at 390 and 1280 px, light and dark (screenshots)', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const user = await player(server);
    const k = server.db.kysely;
    await k.updateTable('tokens').set({ method: 'email', ip: '198.51.100.23', user_agent: WINDOWS_YANDEX }).where('user_id', '=', user.id).execute();
    for (const [ua, method, ip, hours] of [
      [ANDROID, 'telegram_app', '203.0.113.40', 3],
      [IPHONE, 'discord', '192.0.2.77', 26],
    ] as const) {
      await k
        .insertInto('tokens')
        .values({ user_id: user.id, kind: 'access', token_hash: hashToken(newToken()), method, ip, user_agent: ua, last_seen_at: new Date(Date.now() - hours * 3_600_000), created_at: new Date(Date.now() - (hours + 50) * 3_600_000) })
        .execute();
    }
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await newPage(browser, { width, height: width === 390 ? 844 : 900, colorScheme });
        contexts.push(context);
        await context.addInitScript((t) => localStorage.setItem('access_token', t), user.token);
        await page.goto(`${server.url}/profile`);
        await expect.poll(() => page.getByTestId('session').count()).toBe(3);
        await page.screenshot({ path: join(SCREENSHOTS, `profile-security-${width}-${colorScheme}.png`), fullPage: true, animations: 'disabled' });
        await context.close();
      }
    }
  });
});
