import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/src/lib/password';
import { hashToken, newToken } from '../../server/src/lib/tokens';
import { totpCode } from '../../server/src/modules/two-factor/totp';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const PASSWORD = 'second factor 1';
/** A code of the secret `offsetS` seconds from now, computed the way an authenticator app does. */
const codeAt = (secret: string, offsetS = 0) => totpCode(secret, new Date(Date.now() + offsetS * 1000));

describe('second factors in the browser', () => {
  let server: E2EServer;
  let browser: Browser;
  /** Passkeys need a host name: the relying party is the page's host, and WebAuthn refuses an IP. */
  let origin: string;
  const db = () => server.db.kysely;

  beforeAll(async () => {
    server = await startServer();
    origin = server.url.replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function playerWithPassword(attrs: { totp?: boolean; admin?: boolean; name?: string } = {}) {
    const u = await createUser(db(), attrs);
    await db().updateTable('users').set({ password_hash: await hashPassword(PASSWORD) }).where('id', '=', u.id).execute();
    return u;
  }

  async function openAs(token: string, path: string, opts: { width?: number; colorScheme?: 'light' | 'dark'; gamesserverId?: number } = {}) {
    const { context, page } = await newPage(browser, { width: opts.width ?? 1280, height: 900, colorScheme: opts.colorScheme });
    await context.addInitScript(
      ([t, s]) => {
        // Once per tab: a later sign-out (localStorage cleared) must stay signed out across navigations.
        if (sessionStorage.getItem('e2e-seeded')) return;
        sessionStorage.setItem('e2e-seeded', '1');
        localStorage.setItem('access_token', t as string);
        if (s) localStorage.setItem('gamesserver_id', s as string);
      },
      [token, opts.gamesserverId ? String(opts.gamesserverId) : ''],
    );
    await page.goto(`${origin}${path}`);
    return { context, page };
  }

  async function signInWithPassword(page: Page, email: string) {
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${origin}/auth/login_methods/email`);
    await page.getByLabel('Электронная почта').fill(email);
    await page.getByLabel('Пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти', exact: true }).click();
  }

  it('turns TOTP on from the profile (QR, secret, code), then a password sign-in asks for the code', async () => {
    const u = await playerWithPassword({ name: 'Игрок Тотп' });
    const { context, page } = await openAs(u.token, '/profile');
    await page.getByRole('heading', { name: 'Вход с кодом из приложения' }).waitFor();
    await page.getByRole('button', { name: 'Включить', exact: true }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('QR-код для приложения-аутентификатора').waitFor();
    await page.getByTestId('totp-enable-code').fill(codeAt(secret));
    // The current password too: a session alone does not turn TOTP on.
    await page.getByTestId('totp-enable-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Включить', exact: true }).last().click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    expect((await codes.locator('li').allTextContents()).length).toBe(10);
    await page.getByRole('button', { name: 'Коды сохранены' }).click();
    await page.getByText('Включён.', { exact: false }).waitFor();

    await signInWithPassword(page, u.email!);
    await page.waitForURL('**/auth/two_factor');
    // A wrong code is refused in Russian; the next step's code lets in.
    await page.getByTestId('two-factor-code').fill('000000');
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.getByText(/Неверный код/).waitFor();
    await page.getByTestId('two-factor-code').fill(codeAt(secret, 30));
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.waitForURL(`${origin}/`);
    expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeTruthy();
    await context.close();
  });

  it('new recovery codes from the profile for a code from the app; one of them then signs in (screenshots at 390 px, dark)', async () => {
    const u = await playerWithPassword({ totp: true, name: 'Игрок Коды' });
    const { context, page } = await openAs(u.token, '/profile', { width: 390, colorScheme: 'dark' });
    await page.getByRole('button', { name: 'Новые резервные коды' }).click();
    const dialog = page.getByTestId('new-recovery-codes-dialog');
    await dialog.getByLabel('Код из приложения или резервный').fill(codeAt(TEST_TOTP_SECRET));
    // The screenshot once the dialog has faded in (no assertion waits on it).
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(SCREENSHOTS, 'new-recovery-codes-390-dark.png') });
    await dialog.getByRole('button', { name: 'Получить' }).click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    const fresh = (await codes.locator('li').allTextContents()).map((c) => c.trim());
    expect(fresh).toHaveLength(10);
    await page.screenshot({ path: join(SCREENSHOTS, 'new-recovery-codes-shown-390-dark.png') });
    // A tap beside the dialog does not lose them.
    await page.mouse.click(5, 5);
    expect(await codes.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Коды сохранены' }).click();
    await codes.waitFor({ state: 'detached' });

    await signInWithPassword(page, u.email!);
    await page.waitForURL('**/auth/two_factor');
    await page.getByTestId('two-factor-code').fill(fresh[3]!);
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.waitForURL(`${origin}/`);
    expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeTruthy();
    await context.close();
  });

  it('a withdrawal asks for the code in the same dialog and goes through with it', async () => {
    const sid = await firstServerId(db());
    const u = await createUser(db(), { totp: true });
    await fund(db(), await createWallet(db(), u.id, sid, 'Stepper'), 5_000_000n);
    const { context, page } = await openAs(u.token, '/', { gamesserverId: sid });
    await page.getByRole('button', { name: 'Вывести' }).click();
    const take = page.getByTestId('take-dialog');
    await take.getByLabel('Сумма').fill('1кк');
    await take.getByRole('button', { name: 'Вывести' }).click();
    const field = take.getByTestId('step-up-code');
    await field.waitFor();
    expect(await db().selectFrom('balance_requests').select('id').where('user_id', '=', u.id).execute()).toEqual([]);
    await field.fill(codeAt(TEST_TOTP_SECRET, 30));
    await take.getByRole('button', { name: 'Вывести' }).click();
    await take.waitFor({ state: 'hidden' });
    expect(await db().selectFrom('balance_requests').select('amount').where('user_id', '=', u.id).execute()).toEqual([{ amount: 1_000_000n }]);
    await context.close();
  });

  it('a new API key asks for the code in the shared step-up prompt; cancelled, no key is made', async () => {
    const u = await createUser(db(), { totp: true });
    await db().updateTable('users').set({ totp_last_step: null }).where('id', '=', u.id).execute();
    const { context, page } = await openAs(u.token, '/profile');
    await page.getByLabel('Название ключа').fill('Магазин');
    await page.getByRole('button', { name: 'Создать ключ' }).click();
    const prompt = page.getByTestId('step-up-dialog');
    const field = prompt.getByTestId('step-up-code');
    await field.waitFor();
    // Cancelled: no key is made.
    await prompt.getByRole('button', { name: 'Отмена' }).click();
    await prompt.waitFor({ state: 'hidden' });
    expect(await db().selectFrom('api_keys').select('id').where('user_id', '=', u.id).execute()).toEqual([]);
    // With the code: the key is made and shown once.
    await page.getByRole('button', { name: 'Создать ключ' }).click();
    await field.waitFor();
    await field.fill(codeAt(TEST_TOTP_SECRET, 30));
    await prompt.getByRole('button', { name: 'Подтвердить' }).click();
    expect((await page.getByTestId('secret-value').textContent())!).toMatch(/^aw_/);
    expect(await db().selectFrom('api_keys').select('name').where('user_id', '=', u.id).execute()).toEqual([{ name: 'Магазин' }]);
    await context.close();
  });

  it('without TOTP a new API key asks for the current password; a wrong one is said under the field and makes no key', async () => {
    const u = await playerWithPassword();
    const { context, page } = await openAs(u.token, '/profile');
    const section = page.locator('section[aria-labelledby="api-keys-title"]');
    await section.getByLabel('Название ключа').fill('Магазин');
    await section.getByTestId('api-key-password').fill('не тот пароль');
    await section.getByRole('button', { name: 'Создать ключ' }).click();
    await section.getByText('Неверный текущий пароль').waitFor();
    expect(await db().selectFrom('api_keys').select('id').where('user_id', '=', u.id).execute()).toEqual([]);
    if (SCREENSHOTS) {
      // Another player, so the four wrong passwords of the pictures do not use up this one's five.
      const pictured = await playerWithPassword();
      for (const width of [390, 1280]) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const shot = await openAs(pictured.token, '/profile', { width, colorScheme });
          const shown = shot.page.locator('section[aria-labelledby="api-keys-title"]');
          await shown.getByLabel('Название ключа').fill('Магазин');
          await shown.getByTestId('api-key-password').fill('не тот пароль');
          await shown.getByRole('button', { name: 'Создать ключ' }).click();
          await shown.getByText('Неверный текущий пароль').waitFor();
          await shown.scrollIntoViewIfNeeded();
          await shown.screenshot({ path: `${SCREENSHOTS}/api-key-password-${width}-${colorScheme}.png` });
          await shot.context.close();
        }
      }
    }
    await section.getByTestId('api-key-password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Создать ключ' }).click();
    expect((await section.getByTestId('secret-value').textContent())!).toMatch(/^aw_/);
    expect(await section.getByTestId('api-key-password').inputValue()).toBe('');
    expect(await db().selectFrom('api_keys').select('name').where('user_id', '=', u.id).execute()).toEqual([{ name: 'Магазин' }]);
    await context.close();
  });

  it('without TOTP the webhook asks for the current password to connect and for a new secret; a wrong one is said under the field and changes nothing', async () => {
    const u = await playerWithPassword();
    const hookOf = () => db().selectFrom('webhooks').select(['url', 'secret']).where('user_id', '=', u.id).execute();
    const { context, page } = await openAs(u.token, '/profile');
    const section = page.locator('section[aria-labelledby="webhook-title"]');
    await section.getByLabel('Адрес (https://…)').fill('https://93.184.216.34/hook');
    await section.getByTestId('webhook-password').fill('не тот пароль');
    await section.getByRole('button', { name: 'Подключить вебхук' }).click();
    await section.getByText('Неверный текущий пароль').waitFor();
    expect(await hookOf()).toEqual([]);
    if (SCREENSHOTS) {
      // Another player, so the four wrong passwords of the pictures do not use up this one's five.
      const pictured = await playerWithPassword();
      for (const width of [390, 1280]) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const shot = await openAs(pictured.token, '/profile', { width, colorScheme });
          const shown = shot.page.locator('section[aria-labelledby="webhook-title"]');
          await shown.getByLabel('Адрес (https://…)').fill('https://93.184.216.34/hook');
          await shown.getByTestId('webhook-password').fill('не тот пароль');
          await shown.getByRole('button', { name: 'Подключить вебхук' }).click();
          await shown.getByText('Неверный текущий пароль').waitFor();
          await shown.scrollIntoViewIfNeeded();
          await shown.screenshot({ path: `${SCREENSHOTS}/webhook-password-${width}-${colorScheme}.png` });
          await shot.context.close();
        }
      }
    }
    await section.getByTestId('webhook-password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Подключить вебхук' }).click();
    const first = (await section.getByTestId('secret-value').textContent())!;
    expect(first).toMatch(/^whsec_/);
    expect(await section.getByTestId('webhook-password').inputValue()).toBe('');
    expect(await hookOf()).toEqual([{ url: 'https://93.184.216.34/hook', secret: first }]);

    // «Новый секрет» asks for it too: a wrong one leaves the secret as it was.
    await section.getByTestId('webhook-password').fill('не тот пароль');
    await section.getByRole('button', { name: 'Новый секрет' }).click();
    await page.getByTestId('webhook-rotate-dialog').getByRole('button', { name: 'Выдать новый' }).click();
    await section.getByText('Неверный текущий пароль').waitFor();
    expect(await hookOf()).toEqual([{ url: 'https://93.184.216.34/hook', secret: first }]);
    await section.getByTestId('webhook-password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Новый секрет' }).click();
    await page.getByTestId('webhook-rotate-dialog').getByRole('button', { name: 'Выдать новый' }).click();
    await expect.poll(() => section.getByTestId('secret-value').textContent()).not.toBe(first);
    const rotated = (await section.getByTestId('secret-value').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(await section.getByTestId('webhook-password').inputValue()).toBe('');
    expect(await hookOf()).toEqual([{ url: 'https://93.184.216.34/hook', secret: rotated }]);
    await context.close();
  });

  it("open codes are masked until the player gives a code; then shown whole, with the copy button", async () => {
    const sid = await firstServerId(db());
    const u = await createUser(db(), { totp: true, name: 'Игрок Коды' });
    const w = await createWallet(db(), u.id, sid, 'Masked');
    await fund(db(), w, 50_000_000n);
    for (const nominal of [1_000_000, 5_000_000]) {
      await db().updateTable('users').set({ totp_last_step: null }).where('id', '=', u.id).execute();
      const res = await fetch(`${origin}/api/show_code/`, {
        method: 'POST',
        headers: { ...u.auth, 'content-type': 'application/json', 'x-two-factor-code': codeAt(TEST_TOTP_SECRET) },
        body: JSON.stringify({ gamesserver_id: sid, wallet_id: w.id, nominal }),
      });
      expect(res.status).toBe(200);
    }
    // Later, in a session that has not given a code lately (the thief's, or the owner's next day).
    await db().updateTable('tokens').set({ stepped_up_at: null }).where('user_id', '=', u.id).execute();
    await db().updateTable('users').set({ totp_last_step: null }).where('id', '=', u.id).execute();
    const whole = (await db().selectFrom('codes').select('sert').where('user_id', '=', u.id).execute()).map((c) => c.sert).sort();

    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const shot = (name: string) => `${SCREENSHOTS}/two-factor-${name}-${width}-${colorScheme}.png`;
        const { context, page } = await openAs(u.token, '/?tab=codes', { width, colorScheme, gamesserverId: sid });
        const section = page.getByTestId('my-codes-section');
        const serts = section.getByTestId('code-sert');
        await expect.poll(() => serts.count()).toBe(2);
        for (const text of await serts.allTextContents()) expect(text).toMatch(/^ADN-[0-9A-Z]{4}-\*{4}-\*{4}-[0-9A-Z]{4}$/);
        expect(await section.getByRole('button', { name: 'Скопировать код' }).count()).toBe(0);
        expect(await page.content()).not.toContain(whole[0]);
        await section.getByTestId('masked-codes-note').scrollIntoViewIfNeeded();
        await page.waitForTimeout(300);
        await section.screenshot({ path: shot('codes-masked') });
        if (width === 390 && colorScheme === 'light') {
          // A wrong code: the prompt says so and stays; nothing is shown.
          await section.getByRole('button', { name: 'Показать коды' }).click();
          const prompt = page.getByTestId('step-up-dialog');
          await prompt.getByTestId('step-up-code').fill('000000');
          await prompt.getByRole('button', { name: 'Подтвердить' }).click();
          await prompt.getByText('Неверный код').waitFor();
          await prompt.getByTestId('step-up-code').fill(codeAt(TEST_TOTP_SECRET, 30));
          await prompt.getByRole('button', { name: 'Подтвердить' }).click();
          await prompt.waitFor({ state: 'hidden' });
          await expect.poll(async () => (await serts.allTextContents()).sort()).toEqual(whole);
          expect(await section.getByRole('button', { name: 'Скопировать код' }).count()).toBe(2);
          await section.getByTestId('masked-codes-note').waitFor({ state: 'detached' });
          await page.waitForTimeout(300);
          await section.screenshot({ path: shot('codes-shown') });
          // The session stays open for 10 minutes: a reload shows them whole without asking.
          await page.reload();
          await expect.poll(async () => (await serts.allTextContents()).sort()).toEqual(whole);
          await db().updateTable('tokens').set({ stepped_up_at: null }).where('user_id', '=', u.id).execute();
        }
        await context.close();
      }
    }
  });

  it("the Telegram notices link asks a TOTP player for the code; cancelled, the dialog offers to enter it (screenshots at 390 and 1280 px)", async () => {
    const sid = await firstServerId(db());
    const u = await createUser(db(), { totp: true, name: 'Игрок Уведомления' });
    await createWallet(db(), u.id, sid, 'Notice');
    for (const [width, colorScheme] of [
      [390, 'light'],
      [1280, 'dark'],
    ] as const) {
      const { context, page } = await openAs(u.token, '/?tab=codes', { width, colorScheme, gamesserverId: sid });
      await page.getByRole('button', { name: 'Уведомления в Telegram' }).click();
      const prompt = page.getByTestId('step-up-dialog');
      await prompt.getByTestId('step-up-code').waitFor();
      await prompt.getByRole('button', { name: 'Отмена' }).click();
      const dialog = page.getByTestId('subscribe-telegram-dialog');
      await dialog.getByRole('button', { name: 'Ввести код' }).waitFor();
      expect(await db().selectFrom('telegram_link_tokens').select('user_id').where('user_id', '=', u.id).execute()).toEqual([]);
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${SCREENSHOTS}/two-factor-telegram-link-${width}-${colorScheme}.png` });
      if (width === 1280) {
        await dialog.getByRole('button', { name: 'Ввести код' }).click();
        await db().updateTable('users').set({ totp_last_step: null }).where('id', '=', u.id).execute();
        await prompt.getByTestId('step-up-code').fill(codeAt(TEST_TOTP_SECRET));
        await prompt.getByRole('button', { name: 'Подтвердить' }).click();
        await prompt.waitFor({ state: 'hidden' });
        await dialog.getByRole('button', { name: 'Ввести код' }).waitFor({ state: 'detached' });
      }
      await context.close();
    }
  });

  it('registers a passkey with a virtual authenticator, then signs in with it alone', async () => {
    const u = await playerWithPassword({ name: 'Игрок Ключ' });
    const { context, page } = await openAs(u.token, '/profile');
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.getByLabel('Название (необязательно)').fill('Ноутбук');
    // Without TOTP the current password is asked: a stolen session alone cannot leave itself a passkey.
    await page.getByTestId('passkey-password').fill('не тот пароль');
    await page.getByRole('button', { name: 'Добавить ключ доступа' }).click();
    await page.getByText('Неверный текущий пароль').waitFor();
    expect(await db().selectFrom('passkeys').select('id').where('user_id', '=', u.id).execute()).toEqual([]);
    await page.getByTestId('passkey-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Добавить ключ доступа' }).click();
    await page.getByTestId('passkeys-list').getByText('Ноутбук').waitFor();
    expect(await page.getByTestId('passkey-password').inputValue()).toBe('');
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const shot = await openAs(u.token, '/profile', { width, colorScheme });
        const section = shot.page.locator('section[aria-labelledby="passkeys-title"]');
        await section.getByText('Ноутбук').waitFor();
        await shot.page.getByTestId('passkey-password').fill('не тот пароль');
        await section.getByRole('button', { name: 'Добавить ключ доступа' }).click();
        await section.getByText('Неверный текущий пароль').waitFor();
        await section.scrollIntoViewIfNeeded();
        await section.screenshot({ path: `${SCREENSHOTS}/passkeys-password-${width}-${colorScheme}.png` });
        await shot.context.close();
      }
    }
    expect(await db().selectFrom('passkeys').select('name').where('user_id', '=', u.id).execute()).toEqual([{ name: 'Ноутбук' }]);

    await page.evaluate(() => localStorage.clear());
    await page.goto(`${origin}/auth/login_methods/email`);
    await page.getByRole('button', { name: 'Войти с ключом доступа' }).click();
    await page.waitForURL(`${origin}/`);
    const token = await page.evaluate(() => localStorage.getItem('access_token'));
    const me = await fetch(`${origin}/api/user`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me.json()).id).toBe(u.id);
    await context.close();
  });

  it("an operator's first visit to the admin area walks them through TOTP setup", async () => {
    const admin = await createUser(db(), { admin: true, totp: false, name: 'Новый оператор' });
    const { context, page } = await openAs(admin.token, '/admin');
    await page.getByRole('heading', { name: 'Защитите вход оператора' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByTestId('totp-enable-code').fill(codeAt(secret));
    await page.getByRole('button', { name: 'Включить', exact: true }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await page.getByRole('button', { name: 'Коды сохранены' }).click();
    // The user object now says two_factor: the area itself opens.
    await page.locator('[data-view="admin-area"]').waitFor();
    await expect.poll(async () => (await fetch(`${origin}/api/admin/dashboard`, { headers: admin.auth })).status).toBe(200);
    await context.close();
  });

  it("an operator signed in through Telegram gives the code once before the admin area opens (screenshots at 390 and 1280 px, light and dark)", async () => {
    const admin = await createUser(db(), { admin: true, name: 'Оператор из Telegram' });
    // A Telegram sign-in is not asked for the code: such a session has not shown the second factor.
    const telegram = newToken();
    await db().insertInto('tokens').values({ user_id: admin.id, kind: 'access', token_hash: hashToken(telegram), method: 'telegram' }).execute();
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await openAs(telegram, '/admin', { width, colorScheme });
        await page.getByRole('heading', { name: 'Подтвердите вход в админку' }).waitFor();
        expect(await page.locator('[data-view="admin-area"]').count()).toBe(0);
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${SCREENSHOTS}/admin-session-check-${width}-${colorScheme}.png` });
        await context.close();
      }
    }
    const { context, page } = await openAs(telegram, '/admin');
    await page.getByTestId('step-up-code').fill('000000');
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.getByText('Неверный код').waitFor();
    await db().updateTable('users').set({ totp_last_step: null }).where('id', '=', admin.id).execute();
    await page.getByTestId('step-up-code').fill(codeAt(TEST_TOTP_SECRET));
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.locator('[data-view="admin-area"]').waitFor();
    // The session has shown the code: its admin calls answer from now on, without it.
    await expect.poll(async () => (await fetch(`${origin}/api/admin/dashboard`, { headers: { authorization: `Bearer ${telegram}` } })).status).toBe(200);
    await context.close();
  });

  it('screenshots: the profile section, the setup dialog and the code prompt', async () => {
    const u = await playerWithPassword({ name: 'Игрок Скрин' });
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const shot = (name: string) => `${SCREENSHOTS}/two-factor-${name}-${width}-${colorScheme}.png`;
        const { context, page } = await openAs(u.token, '/profile', { width, colorScheme });
        await page.getByRole('heading', { name: 'Вход с кодом из приложения' }).waitFor();
        await page.screenshot({ path: shot('profile'), fullPage: true });
        await page.getByRole('button', { name: 'Включить', exact: true }).click();
        await page.getByTestId('totp-secret').waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: shot('setup') });
        await context.close();
        const login = await newPage(browser, { width, height: 900, colorScheme });
        // A pending sign-in, as a password sign-in with TOTP on leaves it.
        await login.context.addInitScript(() => sessionStorage.setItem('two_factor_token', 'pending'));
        await login.page.goto(`${origin}/auth/two_factor`);
        await login.page.getByTestId('two-factor-code').waitFor();
        await login.page.screenshot({ path: shot('code') });
        await login.context.close();
      }
    }
  });
});
