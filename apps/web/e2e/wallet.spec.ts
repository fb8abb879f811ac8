import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

type TestUser = Awaited<ReturnType<typeof createUser>>;
// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const digits = (s: string | null) => (s ?? '').replace(/\D/g, '');
/** ru-RU groups digits with no-break spaces; the assertions read plain ones. */
const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/[\u00a0\u202f]/g, ' ');

/** A page signed in as the user through the stored token, with the server chosen (or none). */
async function openAs(
  server: E2EServer,
  browser: Browser,
  user: TestUser,
  path: string,
  serverId: number | null,
  view: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
) {
  const { context, page } = await newPage(browser, { width: 1280, height: 900, ...view });
  await context.addInitScript(
    ([t, s]) => {
      if (!sessionStorage.getItem('seeded')) {
        localStorage.setItem('access_token', t as string);
        if (s) localStorage.setItem('gamesserver_id', s);
        sessionStorage.setItem('seeded', '1');
      }
    },
    [user.token, serverId === null ? '' : String(serverId)],
  );
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

const balance = (page: Page) => page.getByTestId('balance').textContent().then(digits);
const live = (page: Page) =>
  expect.poll(() => page.getByTestId('realtime-indicator').getAttribute('data-state'), { timeout: 15_000 }).toBe('connected');
/** A mark on the window: still there later means the page was never reloaded. */
const markPage = (page: Page) => page.evaluate(() => Object.assign(window, { __sameDocument: true }));
const sameDocument = (page: Page) => page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);

describe('a player’s wallet: deposits, withdrawals, the operators’ queue and the history', () => {
  let server: E2EServer;
  let browser: Browser;
  let sid: number;
  const contexts: BrowserContext[] = [];
  const open = async (...args: Parameters<typeof openAs> extends [E2EServer, Browser, ...infer R] ? R : never) => {
    const v = await openAs(server, browser, ...args);
    contexts.push(v.context);
    return v;
  };
  const db = () => server.db.kysely;
  const call = (who: TestUser, url: string, payload: object) => server.app.inject({ method: 'POST', url, headers: who.auth, payload });
  const walletRow = (userId: number) =>
    db().selectFrom('wallets').select(['nick', 'balance', 'balance_second']).where('user_id', '=', userId).where('gamesserver_id', '=', sid).executeTakeFirst();
  const requestsOf = (userId: number) =>
    db().selectFrom('balance_requests').select(['id', 'type', 'amount', 'status', 'nick', 'comment']).where('user_id', '=', userId).orderBy('id').execute();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    sid = await firstServerId(server.db.kysely);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  it('a balance that could not be read says so, never «0», and «Повторить» reads it again', async () => {
    const player = await createUser(db(), { name: 'Игрок Без Связи' });
    const w = await createWallet(db(), player.id, sid, 'Offline');
    await fund(db(), w, 7n * 1_000_000n);
    const { context, page } = await newPage(browser, { width: 1280, height: 900 });
    contexts.push(context);
    await context.addInitScript(
      ([t, s]) => {
        localStorage.setItem('access_token', t as string);
        localStorage.setItem('gamesserver_id', s as string);
      },
      [player.token, String(sid)],
    );
    let down = true;
    await page.route('**/api/wallets', (route) =>
      down ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ message: 'Сервис временно недоступен' }) }) : route.fallback(),
    );
    await page.goto(`${server.url}/`);
    const error = page.getByTestId('balance-error');
    await error.waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('balance').count()).toBe(0);
    down = false;
    await error.getByRole('button', { name: 'Повторить' }).click();
    await expect.poll(() => balance(page)).toBe('7000000');
  });

  it('without a chosen server «Пополнить» says «Вы не выбрали сервер» for 2 seconds; the chosen server and currency stay after a reload', async () => {
    const player = await createUser(db(), { name: 'Игрок Без Сервера' });
    const { page } = await open(player, '/', null);
    await page.getByText('Выберите игровой сервер, чтобы увидеть баланс.').waitFor();

    // How long the dialog stays is timed in the page, from the moment it is added to the moment it is
    // removed: timed from here, a busy machine's late polling would stretch or shrink it.
    await page.evaluate(() => {
      const times: { shown?: number; gone?: number } = {};
      (window as unknown as { noServerTimes: typeof times }).noServerTimes = times;
      const there = () => [...document.querySelectorAll('[role="dialog"]')].some((d) => d.textContent?.includes('Вы не выбрали сервер'));
      new MutationObserver(() => {
        const now = there();
        if (now && times.shown === undefined) times.shown = performance.now();
        if (!now && times.shown !== undefined && times.gone === undefined) times.gone = performance.now();
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByRole('button', { name: 'Пополнить' }).click();
    const noServer = page.getByRole('dialog', { name: 'Вы не выбрали сервер' });
    await noServer.waitFor();
    expect(await text(noServer)).toContain(
      'Без выбора сервера Вы не можете пополнять или выводить адену и видеть баланс адены, подарочные коды и т. д.',
    );
    await noServer.waitFor({ state: 'hidden', timeout: 8_000 });
    // Two seconds on, a put dialog loaded late would be there by now.
    expect(await page.getByTestId('put-dialog').count()).toBe(0);
    const times = await page.evaluate(() => (window as unknown as { noServerTimes: { shown?: number; gone?: number } }).noServerTimes);
    const shownFor = (times.gone ?? Number.NaN) - (times.shown ?? Number.NaN);
    // Two seconds, plus the closing transition (and whatever a busy machine adds to the timer).
    expect(shownFor).toBeGreaterThan(1_900);
    expect(shownFor).toBeLessThan(4_500);

    await page.getByRole('combobox', { name: 'Игровой сервер' }).selectOption({ label: 'Scryde x50' });
    await page.getByRole('heading', { name: 'Кошелёк на Scryde x50' }).waitFor();
    await expect.poll(() => balance(page)).toBe('0');
    await page.getByRole('button', { name: 'Монеты эйнхасад' }).click();
    await expect.poll(() => text(page.getByTestId('balance'))).toBe('0 монет эйнхасад');
    expect(await page.evaluate(() => [localStorage.getItem('gamesserver_id'), localStorage.getItem('currency_type')])).toEqual([String(sid), '2']);

    await page.reload();
    await expect.poll(() => text(page.getByTestId('balance'))).toBe('0 монет эйнхасад');
    expect(await page.getByRole('button', { name: 'Монеты эйнхасад' }).getAttribute('aria-pressed')).toBe('true');
    // The coins' own dialog, with the coins' limits.
    await page.getByRole('button', { name: 'Пополнить' }).click();
    const put = page.getByTestId('put-dialog');
    await put.getByRole('heading', { name: 'Пополнить монеты эйнхасад' }).waitFor();
    expect(await text(put.getByTestId('limits'))).toBe('Пополнение: от 1 до 100 000 монет эйнхасад за заявку');
    await put.getByRole('button', { name: 'Отмена' }).click();
    await page.getByRole('button', { name: 'Адена' }).click();
  });

  it('a player sets a nick and asks to deposit 1.5кк; an operator in another browser completes it and the player’s open page shows the new balance without a reload', async () => {
    const player = await createUser(db(), { name: 'Игрок Ася' });
    const operator = await createUser(db(), { admin: true, name: 'Оператор' });
    const p = await open(player, '/', sid);
    await expect.poll(() => balance(p.page)).toBe('0');
    await live(p.page);

    // The nick: a bad one is refused in Russian, a good one is saved on the wallet.
    const nickField = p.page.getByLabel('Ник персонажа');
    await nickField.fill('A');
    await p.page.getByRole('button', { name: 'Сохранить' }).click();
    await p.page.getByText('Ник — от 2 до 16 латинских или русских букв и цифр').waitFor();
    await nickField.fill('AsyaHero');
    await p.page.getByRole('button', { name: 'Сохранить' }).click();
    await expect.poll(() => p.page.getByTestId('wallet-nick').textContent()).toBe('AsyaHero');
    expect((await walletRow(player.id))?.nick).toBe('AsyaHero');

    // The put dialog names the cashier and the limits, and reads the players' shorthand.
    await p.page.getByRole('button', { name: 'Пополнить' }).click();
    const put = p.page.getByTestId('put-dialog');
    await put.getByRole('heading', { name: 'Пополнить адену' }).waitFor();
    expect(await text(put.getByTestId('limits'))).toBe('Пополнение: от 1кк до 10ккк аден за заявку');
    expect(await put.getByTestId('dialog-cashier-nick').textContent()).toBe('AdenaKassa');
    await put.getByLabel('Сумма').fill('1.5кк');
    await put.getByText('= 1 500 000 аден').waitFor();
    await put.getByRole('button', { name: 'Создать заявку' }).click();
    await expect.poll(() => put.getByTestId('cashier-nick').textContent()).toBe('AdenaKassa');
    const [deposit] = await requestsOf(player.id);
    expect(deposit).toMatchObject({ type: 'input', amount: 1_500_000n, status: 'pending', nick: 'AsyaHero' });
    expect(await text(put)).toContain(`Заявка №${deposit!.id} создана`);
    expect(await text(put)).toContain('Передайте в игре 1 500 000 аден персонажу');
    await put.getByRole('button', { name: 'Готово' }).click();
    await put.waitFor({ state: 'hidden' });
    expect(await balance(p.page)).toBe('0');
    await p.page.getByRole('tab', { name: 'История' }).click();
    const item = p.page.getByTestId('history-item');
    await expect.poll(() => text(item)).toContain('В обработке');
    await markPage(p.page);

    // The operator, in another browser context, completes it from the queue.
    const o = await open(operator, '/admin', sid);
    const card = o.page.getByTestId('admin-request').filter({ hasText: 'AsyaHero' });
    await card.waitFor();
    expect(await text(card)).toContain(`Пополнение №${deposit!.id}`);
    expect(await text(card)).toContain('1 500 000 аден');
    expect(await text(card)).toContain('кассир AdenaKassa');
    await card.getByRole('button', { name: 'Адена получена' }).click();
    // The queue asks once more, naming the request.
    const confirm = o.page.getByTestId('complete-dialog');
    expect(await confirm.getByRole('heading').textContent()).toBe(`Выполнить заявку №${deposit!.id}?`);
    expect(await confirm.textContent()).toContain('Кассир AdenaKassa получил 1\u00a0500\u00a0000');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await o.page.screenshot({ path: join(SCREENSHOTS, 'admin-complete-confirm.png'), animations: 'disabled' });
    await confirm.getByRole('button', { name: 'Адена получена' }).click();
    await o.page.getByText(`Заявка №${deposit!.id} выполнена`).waitFor();
    await card.waitFor({ state: 'detached' });
    expect((await requestsOf(player.id))[0]?.status).toBe('completed');

    // The player's open page: the history entry and then the balance follow, with no reload.
    await expect.poll(() => text(item), { timeout: 10_000 }).toContain('Выполнена');
    await p.page.getByRole('tab', { name: 'Кошелёк' }).click();
    await expect.poll(() => balance(p.page)).toBe('1500000');
    expect(await text(p.page.getByTestId('wallet-card'))).toContain('= 1,5кк');
    expect(await sameDocument(p.page)).toBe(true);
  });

  it('a withdrawal beyond the balance opens the low-capacity dialog, whose top-up opens the put dialog; a withdrawal within it lowers the balance at once', async () => {
    const player = await createUser(db(), { name: 'Игрок Боря' });
    await fund(db(), await createWallet(db(), player.id, sid, 'Placeholder'), 2_000_000n);
    await db().updateTable('wallets').set({ nick: null }).where('user_id', '=', player.id).execute();
    const { page } = await open(player, '/', sid);
    await expect.poll(() => balance(page)).toBe('2000000');

    // No nick yet: the take dialog asks for it itself.
    await page.getByRole('button', { name: 'Вывести' }).click();
    const take = page.getByTestId('take-dialog');
    await take.getByRole('heading', { name: 'Вывести адену' }).waitFor();
    expect(await text(take.getByTestId('limits'))).toContain('Вывод: от 1кк до 5ккк аден за заявку');
    expect(await text(take.getByTestId('available'))).toBe('2 000 000 аден');
    await take.getByLabel('Сумма').fill('5кк');
    expect(await take.getByRole('button', { name: 'Вывести' }).isDisabled()).toBe(true);
    await take.getByLabel('Ник персонажа').fill('BorisL2');
    await take.getByRole('button', { name: 'Вывести' }).click();

    const low = page.getByTestId('low-capacity-dialog');
    await low.getByRole('heading', { name: 'Недостаточно средств' }).waitFor();
    await take.waitFor({ state: 'hidden' });
    expect(await text(low)).toContain('Для вывода нужно 5 000 000 аден, а на балансе 2 000 000 аден.');
    expect(await requestsOf(player.id)).toEqual([]);
    await low.getByRole('button', { name: 'Пополнить' }).click();
    const put = page.getByTestId('put-dialog');
    await put.getByRole('heading', { name: 'Пополнить адену' }).waitFor();
    await low.waitFor({ state: 'hidden' });
    await put.getByRole('button', { name: 'Отмена' }).click();
    await put.waitFor({ state: 'hidden' });
    // The nick typed in the dialog was saved on the wallet.
    await expect.poll(() => page.getByTestId('wallet-nick').textContent()).toBe('BorisL2');

    // Within the balance: held at once, the card shows what is left.
    await page.getByRole('button', { name: 'Вывести' }).click();
    await take.getByLabel('Сумма').fill('1.5кк');
    await take.getByRole('button', { name: 'Вывести' }).click();
    await page.getByText('Заявка на вывод 1 500 000 аден создана').waitFor();
    await expect.poll(() => balance(page)).toBe('500000');
    await take.waitFor({ state: 'hidden' });
    expect(await requestsOf(player.id)).toMatchObject([{ type: 'output', amount: 1_500_000n, status: 'pending', nick: 'BorisL2' }]);
    expect((await walletRow(player.id))?.balance).toBe(500_000n);
  });

  it('the history pages by 10 with status chips; the player cancels a pending withdrawal (the amount comes back) and removes a finished entry', async () => {
    const player = await createUser(db(), { name: 'Игрок Галя' });
    const admin = await createUser(db(), { admin: true });
    await fund(db(), await createWallet(db(), player.id, sid, 'GalyaL2'), 50_000_000n);
    const deposit = async (amount: number) => (await call(player, '/api/up_balance_user/', { gamesserver_id: sid, amount })).json().success.id as number;
    // Oldest first: a completed deposit (alone on page 2), a rejected one, three more completed and five
    // waiting (a player may have at most 5 pending deposits on a server), a withdrawal.
    const completed = await deposit(1_000_000);
    await call(admin, `/api/admin/requests/${completed}/complete`, {});
    const rejected = await deposit(2_000_000);
    await call(admin, `/api/admin/requests/${rejected}/reject`, { reason: 'Передача не найдена' });
    for (let i = 3; i <= 10; i++) {
      const id = await deposit(i * 1_000_000);
      if (i <= 5) await call(admin, `/api/admin/requests/${id}/complete`, {});
    }
    const withdrawal = (await call(player, '/api/down_balance_user/', { gamesserver_id: sid, amount: 3_000_000 })).json().success.id as number;

    const { page } = await open(player, '/?tab=history', sid);
    const items = page.getByTestId('history-item');
    const chip = (l: Locator) => text(l.locator('.MuiChip-root'));
    await expect.poll(() => items.count()).toBe(10);
    const first = items.first();
    expect(await text(first)).toContain(`Вывод №${withdrawal}`);
    expect(await text(first)).toContain('−3 000 000 аден');
    expect(await chip(first)).toBe('В обработке');
    const rejectedItem = items.filter({ hasText: `Пополнение №${rejected}` });
    expect(await chip(rejectedItem)).toBe('Отклонена');
    expect(await text(rejectedItem)).toContain('Комментарий оператора: Передача не найдена');
    expect(await chip(items.filter({ hasText: 'Пополнение №' }).first())).toBe('В обработке');

    // Cancelling the withdrawal (after the confirmation) gives the 3кк back.
    await first.getByRole('button', { name: 'Отменить' }).click();
    await page.getByTestId('confirm-cancel-request').getByRole('button', { name: 'Отменить заявку' }).click();
    await expect.poll(() => chip(first)).toBe('Отменена');
    await page.getByText(`Заявка №${withdrawal} отменена, сумма вернулась на баланс`).waitFor();
    expect((await requestsOf(player.id)).find((r) => r.id === withdrawal)?.status).toBe('cancelled');
    // 50кк funded + the completed deposits (1кк, 3кк, 4кк, 5кк).
    expect((await walletRow(player.id))?.balance).toBe(63_000_000n);
    await page.getByRole('tab', { name: 'Кошелёк' }).click();
    await expect.poll(() => balance(page)).toBe('63000000');

    // Page 2 holds the oldest, completed deposit; removing it leaves one page of ten.
    await page.getByRole('tab', { name: 'История' }).click();
    await page.getByRole('button', { name: 'Перейти на страницу 2' }).click();
    await expect.poll(() => items.count()).toBe(1);
    expect(await text(items.first())).toContain(`Пополнение №${completed}`);
    expect(await chip(items.first())).toBe('Выполнена');
    expect(await items.first().getByRole('button', { name: 'Отменить' }).count()).toBe(0);
    await page.getByRole('button', { name: `Убрать заявку №${completed} из истории` }).click();
    await expect.poll(() => items.count()).toBe(10);
    expect(await items.filter({ hasText: `Пополнение №${completed}` }).count()).toBe(0);
    // Page 1 may first show from the cache (with the old total of 11) until it is read again.
    await expect.poll(() => page.getByRole('button', { name: 'Страница 1' }).count()).toBe(0);

    // Gone for good from the player's own history; the request itself is kept for the ledger.
    await page.reload();
    await expect.poll(() => items.count()).toBe(10);
    expect(await items.filter({ hasText: `Пополнение №${completed}` }).count()).toBe(0);
    expect((await requestsOf(player.id)).find((r) => r.id === completed)?.status).toBe('completed');
  });

  it('a deposit the player opens on another device appears in the history open here without a reload, and shows as cancelled when cancelled there', async () => {
    const player = await createUser(db(), { name: 'Игрок Лена' });
    await fund(db(), await createWallet(db(), player.id, sid, 'LenaL2'), 3_000_000n);
    const p = await open(player, '/?tab=history', sid);
    const items = p.page.getByTestId('history-item');
    await p.page.getByText('Заявок пока нет', { exact: false }).waitFor();
    await live(p.page);
    await markPage(p.page);

    // The other device (a phone): the same player's calls, not this page's.
    const id = (await call(player, '/api/up_balance_user/', { gamesserver_id: sid, amount: 2_000_000 })).json().success.id as number;
    const item = items.filter({ hasText: `Пополнение №${id}` });
    await expect.poll(() => item.count(), { timeout: 10_000 }).toBe(1);
    expect(await text(item.locator('.MuiChip-root'))).toBe('В обработке');
    expect((await call(player, '/api/delete_request/', { id })).statusCode).toBe(200);
    await expect.poll(() => text(item.locator('.MuiChip-root')), { timeout: 10_000 }).toBe('Отменена');
    expect(await sameDocument(p.page)).toBe(true);
    await p.page.getByRole('tab', { name: 'Кошелёк' }).click();
    await expect.poll(() => balance(p.page)).toBe('3000000');
  });

  it('an operator rejects a withdrawal with a reason; the player’s open page gets the amount back and reads the reason', async () => {
    const player = await createUser(db(), { name: 'Игрок Дима' });
    const operator = await createUser(db(), { admin: true, name: 'Оператор Два' });
    await fund(db(), await createWallet(db(), player.id, sid, 'DimaL2'), 10_000_000n);
    const id = (await call(player, '/api/down_balance_user/', { gamesserver_id: sid, amount: 4_000_000 })).json().success.id as number;

    const p = await open(player, '/?tab=history', sid);
    const item = p.page.getByTestId('history-item').first();
    await expect.poll(() => text(item)).toContain('В обработке');
    await live(p.page);
    await markPage(p.page);

    const o = await open(operator, '/admin', sid);
    const card = o.page.getByTestId('admin-request').filter({ hasText: `Вывод №${id}` });
    await card.getByRole('button', { name: 'Отклонить' }).click();
    const dialog = o.page.getByTestId('reject-dialog');
    expect(await text(dialog)).toContain('Удержанная сумма вернётся на баланс игрока.');
    await dialog.getByRole('button', { name: 'Отклонить' }).click();
    await dialog.getByText('Укажите причину').waitFor();
    await dialog.getByLabel('Причина').fill('Персонаж не в игре');
    await dialog.getByRole('button', { name: 'Отклонить' }).click();
    await o.page.getByText(`Заявка №${id} отклонена`).waitFor();
    await card.waitFor({ state: 'detached' });

    await expect.poll(() => text(item), { timeout: 10_000 }).toContain('Отклонена');
    expect(await text(item)).toContain('Комментарий оператора: Персонаж не в игре');
    await p.page.getByRole('tab', { name: 'Кошелёк' }).click();
    await expect.poll(() => balance(p.page)).toBe('10000000');
    expect(await sameDocument(p.page)).toBe(true);
    expect((await walletRow(player.id))?.balance).toBe(10_000_000n);
  });

  it('home, the put dialog, the low-capacity dialog and the history at 390 and 1280 px, light and dark (screenshots)', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const player = await createUser(db(), { name: 'Игрок Витя' });
    const admin = await createUser(db(), { admin: true });
    const wallet = await createWallet(db(), player.id, sid, 'ViktorL2');
    await fund(db(), wallet, 1_000_000_000n);
    await fund(db(), wallet, 1_500n, 2);
    const made: number[] = [];
    for (const [url, amount] of [
      ['/api/up_balance_user/', 250_000_000],
      ['/api/up_balance_user_second_currency/', 300],
      ['/api/up_balance_user/', 80_000_000],
      ['/api/down_balance_user/', 40_000_000],
      ['/api/up_balance_user/', 30_000_000],
      ['/api/down_balance_user/', 12_500_000],
      ['/api/up_balance_user/', 5_000_000],
      ['/api/up_balance_user/', 1_500_000],
      ['/api/down_balance_user/', 2_000_000],
      ['/api/up_balance_user/', 20_000_000],
      ['/api/down_balance_user/', 15_000_000],
      ['/api/up_balance_user/', 7_500_000],
    ] as const) {
      const id = (await call(player, url, { gamesserver_id: sid, amount })).json().success.id as number;
      made.push(id);
      // The first five are decided as they come (a player may have at most 5 pending deposits on a server).
      if (made.length === 1 || made.length === 2 || made.length === 4) await call(admin, `/api/admin/requests/${id}/complete`, {});
      if (made.length === 3) await call(admin, `/api/admin/requests/${id}/reject`, { reason: 'Передача не найдена в логах сервера' });
      if (made.length === 5) await call(player, '/api/delete_request/', { id });
    }
    for (const id of made.slice(8, 10)) await call(admin, `/api/admin/requests/${id}/complete`, {});

    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const v = await open(player, '/', sid, { width, height: width === 390 ? 844 : 900, colorScheme });
        const shot = (name: string, fullPage = true) =>
          v.page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}-${colorScheme}.png`), fullPage, animations: 'disabled' });
        await expect.poll(() => balance(v.page)).not.toBe('0');
        await live(v.page);
        await v.page.waitForLoadState('networkidle');
        await shot('wallet-home');

        await v.page.getByRole('button', { name: 'Пополнить' }).click();
        await v.page.getByTestId('put-dialog').getByLabel('Сумма').fill('1.5кк');
        await shot('wallet-put', false);
        // A thousand or a million? Said under the field, and nothing can be sent.
        await v.page.getByTestId('put-dialog').getByLabel('Сумма').fill('1.000 000');
        await v.page.getByTestId('put-dialog').getByText('Введите целое число, например 1500000 или 1,5кк').waitFor();
        expect(await v.page.getByTestId('put-dialog').getByRole('button', { name: 'Создать заявку' }).isDisabled()).toBe(true);
        await shot('wallet-put-unclear', false);
        await v.page.getByTestId('put-dialog').getByRole('button', { name: 'Отмена' }).click();
        await v.page.getByTestId('put-dialog').waitFor({ state: 'hidden' });

        await v.page.getByRole('button', { name: 'Вывести' }).click();
        await v.page.getByTestId('take-dialog').getByLabel('Сумма').fill('5ккк');
        await v.page.getByTestId('take-dialog').getByRole('button', { name: 'Вывести' }).click();
        await v.page.getByTestId('low-capacity-dialog').getByRole('heading', { name: 'Недостаточно средств' }).waitFor();
        await shot('wallet-low-capacity', false);
        await v.page.getByTestId('low-capacity-dialog').getByRole('button', { name: 'Закрыть' }).click();
        await v.page.getByTestId('low-capacity-dialog').waitFor({ state: 'hidden' });

        await v.page.getByRole('tab', { name: 'История' }).click();
        await expect.poll(() => v.page.getByTestId('history-item').count()).toBe(10);
        await shot('history');
        await v.context.close();
      }
    }
  });
});
