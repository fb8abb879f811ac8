import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

type TestUser = Awaited<ReturnType<typeof createUser>>;
// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const digits = (s: string | null) => (s ?? '').replace(/\D/g, '');

/** A page signed in as the user through the stored token, with the server chosen. */
async function openAs(
  server: E2EServer,
  browser: Browser,
  user: TestUser,
  path: string,
  serverId: number,
  view: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
) {
  const { context, page } = await newPage(browser, { width: 1280, height: 900, ...view });
  await context.addInitScript(
    ([t, s]) => {
      if (!sessionStorage.getItem('seeded')) {
        localStorage.setItem('access_token', t as string);
        localStorage.setItem('gamesserver_id', s as string);
        sessionStorage.setItem('seeded', '1');
      }
    },
    [user.token, String(serverId)],
  );
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

const balance = (page: Page) => page.getByTestId('balance').textContent().then(digits);
const live = (page: Page) => expect.poll(() => page.getByTestId('realtime-indicator').getAttribute('data-state'), { timeout: 15_000 }).toBe('connected');

describe('a player’s money: deposit, operator, withdrawal, history', () => {
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

  it('deposits 1.5кк, sees an operator complete it live, withdraws, cancels and reads the history', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const player = await createUser(db, { name: 'Игрок Ася' });
    await fund(db, await createWallet(db, player.id, sid, 'AsyaHero'), 1_000_000n);
    const operator = await createUser(db, { admin: true, name: 'Оператор' });

    const p = await openAs(server, browser, player, '/', sid);
    contexts.push(p.context);
    await expect.poll(() => balance(p.page)).toBe('1000000');
    await live(p.page);

    // Deposit with players' shorthand; the dialog names the cashier to trade with.
    await p.page.getByRole('button', { name: 'Пополнить' }).click();
    const put = p.page.getByTestId('put-dialog');
    await put.getByLabel('Сумма').fill('1.5кк');
    await put.getByRole('button', { name: 'Создать заявку' }).click();
    const cashier = (await db.selectFrom('gamesservers').select('cashier_nick').where('id', '=', sid).executeTakeFirstOrThrow()).cashier_nick;
    await expect.poll(() => put.getByTestId('cashier-nick').textContent()).toBe(cashier);
    await put.getByRole('button', { name: 'Готово' }).click();
    expect(await balance(p.page)).toBe('1000000');

    // The operator, in another browser context, completes it from the queue.
    const o = await openAs(server, browser, operator, '/admin', sid);
    contexts.push(o.context);
    const request = o.page.getByTestId('admin-request').filter({ hasText: 'AsyaHero' });
    await request.waitFor();
    expect(digits(await request.textContent())).toContain('1500000');
    await request.getByRole('button', { name: 'Адена получена' }).click();

    // The player's open page shows the new balance without a reload.
    await expect.poll(() => balance(p.page), { timeout: 10_000 }).toBe('2500000');

    // Too much: the low-capacity dialog, whose top-up opens the put dialog and closes itself.
    await p.page.getByRole('button', { name: 'Вывести' }).click();
    const take = p.page.getByTestId('take-dialog');
    await take.getByLabel('Сумма').fill('5кк');
    await take.getByRole('button', { name: 'Вывести' }).click();
    const low = p.page.getByTestId('low-capacity-dialog');
    await low.waitFor();
    await low.getByRole('button', { name: 'Пополнить' }).click();
    await p.page.getByTestId('put-dialog').waitFor();
    await expect.poll(() => low.isVisible()).toBe(false);
    await p.page.getByTestId('put-dialog').getByRole('button', { name: 'Отмена' }).click();

    // A withdrawal the balance allows is held at once.
    await p.page.getByRole('button', { name: 'Вывести' }).click();
    await take.getByLabel('Сумма').fill('1кк');
    await take.getByRole('button', { name: 'Вывести' }).click();
    await expect.poll(() => balance(p.page)).toBe('1500000');
    await expect.poll(() => take.isVisible()).toBe(false);

    // History: the withdrawal waits, the deposit is done; cancelling returns the money.
    await p.page.getByRole('tab', { name: 'История' }).click();
    const items = p.page.getByTestId('history-item');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toContain('В обработке');
    expect(await items.nth(1).textContent()).toContain('Выполнена');
    await items.nth(0).getByRole('button', { name: 'Отменить' }).click();
    await expect.poll(() => items.nth(0).textContent()).toContain('Отменена');
    const row = await db.selectFrom('balance_requests').select(['id', 'status']).where('user_id', '=', player.id).where('type', '=', 'output').executeTakeFirstOrThrow();
    expect(row.status).toBe('cancelled');
    await p.page.getByRole('tab', { name: 'Кошелёк' }).click();
    await expect.poll(() => balance(p.page)).toBe('2500000');

    // A finished entry can be removed from the player's own history.
    await p.page.getByRole('tab', { name: 'История' }).click();
    await p.page.getByRole('button', { name: `Убрать заявку №${row.id} из истории` }).click();
    await expect.poll(() => items.count()).toBe(1);
    await p.page.reload();
    await p.page.getByRole('tab', { name: 'История' }).click();
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.nth(0).textContent()).toContain('Выполнена');
  });

  it('home, a dialog and the history at 390 and 1280 px, light and dark (screenshots)', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const player = await createUser(db, { name: 'Игрок Витя' });
    const wallet = await createWallet(db, player.id, sid, 'ViktorL2');
    await fund(db, wallet, 1_234_567_890n);
    await fund(db, wallet, 1_500n, 2);
    const admin = await createUser(db, { admin: true });
    const call = (who: TestUser, url: string, payload: object) => server.app.inject({ method: 'POST', url, headers: who.auth, payload });
    for (const [url, amount] of [['/api/up_balance_user/', 250_000_000], ['/api/down_balance_user/', 40_000_000], ['/api/up_balance_user_second_currency/', 300]] as const) {
      const r = (await call(player, url, { gamesserver_id: sid, amount })).json().success;
      if (url !== '/api/down_balance_user/') await call(admin, `/api/admin/requests/${r.id}/complete`, {});
    }
    await call(player, '/api/down_balance_user/', { gamesserver_id: sid, amount: 15_000_000 });
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const v = await openAs(server, browser, player, '/', sid, { width, height: width === 390 ? 844 : 900, colorScheme });
        contexts.push(v.context);
        const shot = (name: string, fullPage = true) =>
          v.page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}-${colorScheme}.png`), fullPage, animations: 'disabled' });
        await expect.poll(() => balance(v.page)).not.toBe('');
        await v.page.waitForLoadState('networkidle');
        await shot('home');
        await v.page.getByRole('button', { name: 'Пополнить' }).click();
        await v.page.getByTestId('put-dialog').getByLabel('Сумма').fill('1.5кк');
        await shot('dialog-put', false);
        await v.page.getByTestId('put-dialog').getByRole('button', { name: 'Отмена' }).click();
        await v.page.getByRole('tab', { name: 'История' }).click();
        await expect.poll(() => v.page.getByTestId('history-item').count()).toBe(4);
        await shot('history');
        await v.context.close();
      }
    }
  });
});
