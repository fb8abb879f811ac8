import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutbox } from '../../server/test/fakes/outbox';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

const EMAIL = `hero.${Date.now()}@example.com`;
const PASSWORD = 'first password 1';
const NEW_PASSWORD = 'second password 2';

/** The n-th code written to the outbox for this address (messages leave just after the answer). */
async function codeFromOutbox(server: E2EServer, to: string, nth: number): Promise<string> {
  let code: string | null | undefined;
  await expect
    .poll(() => {
      code = readOutbox(server.dataDir).filter((m) => m.to === to && m.code)[nth - 1]?.code;
      return code;
    }, { timeout: 10_000 })
    .toMatch(/^\d{6}$/);
  return code!;
}

const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem('access_token'));

async function signedInAs(page: Page, email: string) {
  await page.getByRole('button', { name: 'Профиль' }).click();
  await expect.poll(() => page.getByRole('menu').textContent()).toContain(email);
  await page.keyboard.press('Escape');
}

/** One player's story, in order: the page and its storage carry over from one step to the next. */
describe('a player with an email address', () => {
  let server: E2EServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let firstToken: string | null = null;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    ({ context, page } = await newPage(browser));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('registers with the code from the outbox and lands signed in', async () => {
    await page.goto(`${server.url}/auth/register/email`);
    await page.getByLabel('Электронная почта').fill(EMAIL);
    await page.getByLabel('Имя (необязательно)').fill('Странник');
    await page.getByLabel('Пароль', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Повторите пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Получить код' }).click();

    await expect.poll(() => page.getByText('Мы отправили код из 6 цифр').textContent()).toContain(EMAIL);
    // A resend is offered only after the countdown.
    expect(await page.getByRole('button', { name: /Отправить код ещё раз через \d+\s+с/ }).isDisabled()).toBe(true);

    // A wrong code first: the server's Russian message shows under the field.
    const code = await codeFromOutbox(server, EMAIL, 1);
    await page.getByLabel('Код подтверждения').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await expect.poll(() => page.getByText('Неверный код. Осталось попыток: 4').count()).toBe(1);

    await page.getByLabel('Код подтверждения').fill(code);
    await page.getByRole('button', { name: 'Подтвердить' }).click();
    await page.waitForURL(`${server.url}/`);
    await signedInAs(page, EMAIL);
    firstToken = await storedToken(page);
    expect(firstToken).toBeTruthy();
  });

  it('signs out, and the old session is over on the server too', async () => {
    await page.getByRole('button', { name: 'Профиль' }).click();
    await page.getByRole('menuitem', { name: 'Выйти' }).click();
    await page.getByRole('link', { name: 'Войти' }).waitFor();
    expect(await storedToken(page)).toBeNull();
    const res = await fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${firstToken}` } });
    expect(res.status).toBe(401);
  });

  it('signs in with email and password, after a wrong password is refused in Russian', async () => {
    await page.getByRole('link', { name: 'Войти' }).click();
    await page.waitForURL(`${server.url}/auth/login_methods/email`);
    await page.getByLabel('Электронная почта').fill(EMAIL);
    await page.getByLabel('Пароль').fill('not my password');
    await page.getByRole('button', { name: 'Войти', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Неверный логин или пароль');

    await page.getByLabel('Пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти', exact: true }).click();
    await page.waitForURL(`${server.url}/`);
    await signedInAs(page, EMAIL);
  });

  it('resets a forgotten password with an emailed code and is signed in with the new one', async () => {
    const login = (password: string) =>
      fetch(`${server.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password }) });
    // Still signed in on another device while the password is reset here.
    const otherDevice = ((await (await login(PASSWORD)).json()) as { access_token: string }).access_token;
    await page.getByRole('button', { name: 'Профиль' }).click();
    await page.getByRole('menuitem', { name: 'Выйти' }).click();
    await page.getByRole('link', { name: 'Войти' }).click();
    await page.getByRole('link', { name: 'Забыли пароль?' }).click();
    await page.waitForURL(`${server.url}/auth/reset/email`);
    await page.getByLabel('Электронная почта').fill(EMAIL);
    await page.getByRole('button', { name: 'Получить код' }).click();

    const code = await codeFromOutbox(server, EMAIL, 2);
    // A new code can be asked for here too, once the minute has passed.
    expect(await page.getByRole('button', { name: /Отправить код ещё раз через \d+\s+с/ }).isDisabled()).toBe(true);
    await page.getByLabel('Код подтверждения').fill(code);
    await page.getByRole('button', { name: 'Подтвердить' }).click();

    await page.getByLabel('Новый пароль').fill(NEW_PASSWORD);
    await page.getByLabel('Повторите пароль').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Сохранить пароль и войти' }).click();
    await page.waitForURL(`${server.url}/`);
    await signedInAs(page, EMAIL);

    // The old password is gone, the new one works, and the other device is signed out.
    expect((await login(PASSWORD)).status).toBe(401);
    expect((await login(NEW_PASSWORD)).status).toBe(200);
    expect((await fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${otherDevice}` } })).status).toBe(401);
  });
});
