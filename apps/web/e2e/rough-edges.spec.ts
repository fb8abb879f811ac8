import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutbox } from '../../server/test/fakes/outbox';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

type TestUser = Awaited<ReturnType<typeof createUser>>;

// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');

const PASSWORD = 'phone password 1';

/**
 * Latin words a Russian player may see: brand names of other services, the VIP status, the game,
 * the demo servers' names and cashiers and the player's own nick (data, not interface), and code
 * texts (ADN-…). Email addresses and Telegram @names are removed before the scan.
 */
const ALLOWED = new Set(['scanner', 'telegram', 'discord', 'vip', 'lineage', 'scryde', 'asterios', 'global', 'x1', 'x5', 'x50', 'adenakassa', 'adenabank', 'adenacashier', 'hero', 'adn', 'xxxx',
  // The sellers' section names the API, its path, method and the Standard Webhooks specification; PIN of a device.
  'api', 'v1', 'post', 'https', 'xx', 'standard', 'webhooks', 'funpay', 'pin']);

/** Visible text plus every aria-label, title, placeholder and alt of the page. */
const interfaceText = (page: Page) =>
  page.evaluate(() => {
    const parts = [document.body.innerText];
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      const style = window.getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
        const v = el.getAttribute(a);
        if (v) parts.push(v);
      }
    }
    return parts.join('\n');
  });

const englishWords = (text: string) =>
  (text.replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, ' ').replace(/@\w+/g, ' ').match(/[A-Za-z][A-Za-z0-9]+/g) ?? []).filter((w) => !ALLOWED.has(w.toLowerCase()));

describe('the rough edges a Russian player trips over', () => {
  let server: E2EServer;
  let browser: Browser;
  let sid: number;
  const contexts: BrowserContext[] = [];
  const db = () => server.db.kysely;

  async function open(user: TestUser | null, path: string, view: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}) {
    const { context, page } = await newPage(browser, view);
    contexts.push(context);
    await context.addInitScript(
      ([t, s]) => {
        if (!sessionStorage.getItem('seeded')) {
          if (t) localStorage.setItem('access_token', t);
          localStorage.setItem('gamesserver_id', s as string);
          sessionStorage.setItem('seeded', '1');
        }
      },
      [user?.token ?? '', String(sid)],
    );
    await page.goto(`${server.url}${path}`);
    return { context, page };
  }
  const deposit = (who: TestUser, amount: number) =>
    server.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: who.auth, payload: { gamesserver_id: sid, amount } });
  const statusOf = async (id: number) => (await db().selectFrom('balance_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ env: { SUPPORT_EMAIL: 'help@l2bank.ru', SUPPORT_TELEGRAM: '@l2bank_help' } }),
      launchBrowser(),
    ]);
    sid = await firstServerId(db());
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  it('«Отменить» on a pending deposit asks first, warns that adena handed to the cashier is not returned, and «Не отменять» keeps it', async () => {
    const player = await createUser(db());
    await createWallet(db(), player.id, sid, 'Careful');
    const id = (await deposit(player, 2_000_000)).json().success.id as number;
    const { page } = await open(player, '/?tab=history');
    const item = page.getByTestId('history-item').filter({ hasText: `№${id}` });
    await item.getByRole('button', { name: 'Отменить' }).click();
    const dialog = page.getByTestId('confirm-cancel-request');
    await dialog.waitFor({ state: 'visible' });
    const said = ((await dialog.textContent()) ?? '').replace(/\u00a0/g, ' ');
    expect(said).toContain(`Отменить заявку №${id}?`);
    expect(said).toMatch(/уже передали адену кассиру.*отмена не\s+вернёт/);
    await dialog.getByRole('button', { name: 'Не отменять' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await statusOf(id)).toBe('pending');

    await item.getByRole('button', { name: 'Отменить' }).click();
    await dialog.getByRole('button', { name: 'Отменить заявку' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => statusOf(id)).toBe('cancelled');
  });

  it('«Отменить» on an open code asks first; «Не отменять» keeps the code and its price', async () => {
    const seller = await createUser(db());
    await fund(db(), await createWallet(db(), seller.id, sid, 'Seller'), 100_000_000n);
    const { page } = await open(seller, '/?tab=codes');
    await page.getByTestId('nominal').first().click();
    const show = page.getByTestId('show-code-dialog');
    await show.getByRole('button', { name: /^Оплатить/ }).click();
    await show.getByTestId('revealed-sert').waitFor();
    await show.getByRole('button', { name: 'Готово' }).click();
    const mine = page.getByTestId('my-code').first();
    await mine.getByRole('button', { name: 'Отменить' }).click();
    const confirm = page.getByTestId('cancel-code-dialog');
    await confirm.waitFor({ state: 'visible' });
    await confirm.getByRole('button', { name: 'Не отменять' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await mine.getAttribute('data-status')).toBe('active');
    const codes = await db().selectFrom('codes').select('status').where('user_id', '=', seller.id).execute();
    expect(codes.map((c) => c.status)).toEqual(['active']);
  });

  it('the confirmation at 390 and 1280 px, light and dark (screenshots)', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const player = await createUser(db(), { name: 'Игрок Лена' });
    await createWallet(db(), player.id, sid, 'LenaL2');
    const id = (await deposit(player, 1_500_000)).json().success.id as number;
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page } = await open(player, '/?tab=history', { width, height: width === 390 ? 844 : 900, colorScheme });
        await page.getByTestId('history-item').filter({ hasText: `№${id}` }).getByRole('button', { name: 'Отменить' }).click();
        await page.getByTestId('confirm-cancel-request').waitFor({ state: 'visible' });
        await page.screenshot({ path: join(SCREENSHOTS, `confirm-cancel-${width}-${colorScheme}.png`), animations: 'disabled' });
      }
    }
    expect(await statusOf(id)).toBe('pending');
  });

  it('a phone typed as «8 900 123-45-67» signs up, and the account holds it as +7…', async () => {
    const national = `9${String(Date.now()).slice(-9)}`;
    const e164 = `+7${national}`;
    const { page } = await open(null, '/auth/register/phone');
    await page.getByLabel('Телефон').fill(`8 ${national.slice(0, 3)} ${national.slice(3, 6)}-${national.slice(6, 8)}-${national.slice(8)}`);
    await page.getByLabel('Пароль', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Повторите пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Получить код' }).click();
    let code: string | null | undefined;
    await expect
      .poll(() => {
        code = readOutbox(server.dataDir).find((m) => m.to === e164 && m.code)?.code;
        return code;
      }, { timeout: 10_000 })
      .toMatch(/^\d{6}$/);
    await page.getByLabel('Код подтверждения').fill(code!);
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.waitForURL(`${server.url}/`);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('access_token'))).toBeTruthy();
    const user = await db().selectFrom('users').select('phone').where('phone', '=', e164).executeTakeFirst();
    expect(user?.phone).toBe(e164);
  });

  it('a premium-rate number is refused under «Телефон» and gets no SMS; the form stays filled for another number (and at 390 px, light and dark)', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      const premium = `809${String(Date.now()).slice(-7)}`;
      const { page } = await open(null, '/auth/register/phone', { width: 390, height: 844, colorScheme });
      const hint = page.locator(`#${await page.getByLabel('Телефон').getAttribute('aria-describedby')}`);
      expect(await hint.textContent()).toBe('Мобильный номер: на него придёт СМС с кодом');
      await page.getByLabel('Телефон').fill(`8 ${premium}`);
      await page.getByLabel('Пароль', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Повторите пароль').fill(PASSWORD);
      await page.getByRole('button', { name: 'Получить код' }).click();
      const phone = page.getByLabel('Телефон');
      await expect.poll(() => phone.getAttribute('aria-invalid')).toBe('true');
      const helper = page.locator(`#${await phone.getAttribute('aria-describedby')}`);
      expect(await helper.textContent()).toBe('На этот номер мы не отправляем SMS: нужен мобильный номер России или стран СНГ');
      expect(await page.getByLabel('Пароль', { exact: true }).inputValue()).toBe(PASSWORD);
      expect(readOutbox(server.dataDir).filter((m) => m.to === `+7${premium}`)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, `register-phone-refused-390-${colorScheme}.png`), animations: 'disabled' });
    }
  });

  it('signing in from the «Вы не авторизованы» dialog brings the player back to the codes tab; the sign-in page then sends them on', async () => {
    const player = await createUser(db(), { email: `back.${Date.now()}@example.com` });
    const hash = await import('../../server/src/lib/password').then((m) => m.hashPassword(PASSWORD));
    await db().updateTable('users').set({ password_hash: hash }).where('id', '=', player.id).execute();
    const { page } = await open(null, '/?tab=codes');
    await page.getByTestId('activation-input').fill('ADN-AAAA-BBBB-CCCC-DDDD');
    await page.getByRole('button', { name: 'Активировать' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL(/\/auth\/login_methods\/email$/);
    await page.getByLabel('Электронная почта').fill(player.email!);
    await page.getByLabel('Пароль', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/' && u.search === '?tab=codes');
    await page.getByTestId('codes-tab').waitFor();
    // Signed in, the sign-in page is not for them.
    await page.goto(`${server.url}/auth/login_methods/phone`);
    await page.waitForURL((u) => !u.pathname.startsWith('/auth'));
  });

  it('the contacts page shows the support contacts from the settings', async () => {
    const { page } = await open(null, '/contacts');
    await expect.poll(() => page.getByTestId('support-email').getAttribute('href')).toBe('mailto:help@l2bank.ru');
    expect(await page.getByTestId('support-telegram').getAttribute('href')).toBe('https://t.me/l2bank_help');
    expect(await page.locator('body').innerText()).not.toMatch(/adena\.local|adena_wallet_support/);
  });

  it('no English interface words on any player page, signed out and signed in', async () => {
    const player = await createUser(db(), { name: 'Игрок Скан' });
    const wallet = await createWallet(db(), player.id, sid, 'Scanner');
    await fund(db(), wallet, 50_000_000n);
    await deposit(player, 1_000_000);
    const pages = ['/', '/?tab=codes', '/?tab=history', '/help', '/contacts', '/about', '/no-such-page'];
    const signedOut = [
      ...pages,
      '/auth/login_methods/email',
      '/auth/login_methods/phone',
      '/auth/register/email',
      '/auth/register/phone',
      '/auth/reset/email',
      '/auth/reset/phone',
    ];
    const found: string[] = [];
    for (const [who, paths] of [
      [null, signedOut],
      [player, [...pages, '/profile']],
    ] as const) {
      const { page } = await open(who, paths[0]!);
      for (const path of paths) {
        await page.goto(`${server.url}${path}`);
        await page.waitForLoadState('networkidle');
        await page.locator('main').waitFor();
        for (const w of englishWords(await interfaceText(page))) found.push(`${who ? 'signed in' : 'signed out'} ${path}: ${w}`);
      }
      if (who) {
        // The open menus and dialogs say things too.
        await page.goto(`${server.url}/`);
        await page.getByRole('button', { name: 'Профиль' }).click();
        await page.getByRole('menu').waitFor();
        for (const w of englishWords(await interfaceText(page))) found.push(`profile menu: ${w}`);
        await page.keyboard.press('Escape');
        await page.getByRole('button', { name: 'Пополнить' }).click();
        await page.getByTestId('put-dialog').waitFor();
        for (const w of englishWords(await interfaceText(page))) found.push(`put dialog: ${w}`);
        await page.keyboard.press('Escape');
        // A snackbar, with its close button.
        await page.goto(`${server.url}/?tab=history`);
        await page.getByTestId('history-item').first().getByRole('button', { name: 'Отменить' }).click();
        await page.getByTestId('confirm-cancel-request').getByRole('button', { name: 'Отменить заявку' }).click();
        await page.getByRole('alert').filter({ hasText: 'отменена' }).waitFor();
        for (const w of englishWords(await interfaceText(page))) found.push(`snackbar: ${w}`);
        expect(await page.getByRole('alert').getByRole('button', { name: 'Закрыть' }).count()).toBe(1);
      }
    }
    expect(found).toEqual([]);
  });
});
