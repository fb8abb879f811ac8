import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../server/src/modules/two-factor/totp';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const KK = 1_000_000;
type TestUser = Awaited<ReturnType<typeof createUser>>;

describe("the operators' shift in two browsers", () => {
  let server: E2EServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  async function openAs(user: TestUser, path: string, opts: { width?: number; colorScheme?: 'light' | 'dark' } = {}) {
    const { context, page } = await newPage(browser, { width: opts.width ?? 1280, height: 900, colorScheme: opts.colorScheme });
    contexts.push(context);
    await context.addInitScript((t) => localStorage.setItem('access_token', t as string), user.token);
    await page.goto(`${server.url}${path}`);
    return page;
  }

  async function deposit(player: TestUser, serverId: number, amount: number) {
    const res = await server.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: serverId, amount } });
    expect(res.statusCode).toBe(200);
    return res.json().success.id as number;
  }

  it('one operator claims a request; the other sees the claim at once and cannot decide it', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const anna = await createUser(db, { admin: true, name: 'Анна', email: 'anna@example.com' });
    const boris = await createUser(db, { admin: true, name: 'Борис', email: 'boris@example.com' });
    const player = await createUser(db, { name: 'Игрок' });
    const wallet = await createWallet(db, player.id, sid, 'Hero');
    await fund(db, wallet, 5n * BigInt(KK));

    const a = await openAs(anna, '/admin');
    const b = await openAs(boris, '/admin');
    for (const page of [a, b]) await expect.poll(() => page.getByTestId('shift-signals').textContent(), { timeout: 10_000 }).toMatch(/реальном времени/);

    // A deposit arrives: both queues show it from the operators' channel (polling is off while it is up).
    const id = await deposit(player, sid, 3 * KK);
    const cardOf = (page: typeof a) => page.getByTestId('admin-request').filter({ hasText: `№${id}` });
    await cardOf(a).waitFor({ timeout: 10_000 });
    await cardOf(b).waitFor({ timeout: 10_000 });
    // The tab title counts the pending request.
    await expect.poll(() => b.title(), { timeout: 10_000 }).toMatch(/^\(1\) /);

    await cardOf(a).getByRole('button', { name: 'Взять в работу' }).click();
    await expect.poll(() => cardOf(a).getByTestId('claim-chip').textContent()).toBe('В работе у вас');
    // Boris's page learns it from the channel, with no reload and no poll (the feed is live, so the list polls only every 60 s: the 10 s bounds are met by the channel alone).
    await expect.poll(() => cardOf(b).getByTestId('claim-chip').textContent(), { timeout: 10_000 }).toBe('В работе: Анна');
    expect(await cardOf(b).getByRole('button', { name: 'Адена получена' }).isDisabled()).toBe(true);
    expect(await cardOf(b).getByRole('button', { name: 'Отклонить' }).isDisabled()).toBe(true);
    expect(await cardOf(b).getByRole('button', { name: 'Взять в работу' }).count()).toBe(0);
    // Trying it anyway — straight at the API from Boris's page — is refused, naming Анна.
    const refused = await b.evaluate(async (rid) => {
      const res = await fetch(`/api/admin/requests/${rid}/complete`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${localStorage.getItem('access_token')}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      return { status: res.status, body: await res.json() };
    }, id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/Анна/);
    // Boris's card says when he may take it over: CLAIM_TIMEOUT_MIN (15) after Anna's claim, on his clock.
    const claimedAt = (await db.selectFrom('balance_requests').select('claimed_at').where('id', '=', id).executeTakeFirstOrThrow()).claimed_at!;
    const lapse = new Intl.DateTimeFormat('ru-RU', { timeStyle: 'short' }).format(new Date(claimedAt.getTime() + 15 * 60_000));
    expect(await cardOf(b).getByTestId('claim-lapse').textContent()).toBe(`Взять себе можно с ${lapse}, если захват не продлят. Взята или продлена только что.`);

    // Another request stays free, for the screenshot of a mixed queue.
    await deposit(player, sid, 1_500_000);
    await cardOf(b).waitFor();
    await a.getByText('Заявка №1 у вас в работе').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
    await a.screenshot({ path: join(SCREENSHOTS, 'admin-queue-claimed.png'), fullPage: true, animations: 'disabled' });
    const dark = await openAs(boris, '/admin', { colorScheme: 'dark' });
    await dark.getByTestId('claim-chip').first().waitFor();
    await dark.screenshot({ path: join(SCREENSHOTS, 'admin-queue-claimed-dark.png'), fullPage: true, animations: 'disabled' });
    const narrow = await openAs(boris, '/admin', { width: 390 });
    await narrow.getByTestId('claim-chip').first().waitFor();
    await narrow.screenshot({ path: join(SCREENSHOTS, 'admin-queue-claimed-390.png'), fullPage: true, animations: 'disabled' });
    // The pending summary fits the phone, with nothing out of sight to scroll to: the currency goes under
    // the server's name (walk 14 found «Выводы» cut off at the edge).
    const summary = narrow.getByRole('table', { name: 'Ожидающие заявки по серверам' });
    expect(await summary.evaluate((t) => t.scrollWidth - (t.parentElement?.clientWidth ?? 0))).toBeLessThanOrEqual(0);
    expect(await summary.getByRole('row').nth(1).getByRole('cell').first().innerText()).toMatch(/^\S.*\n+Адена$/);

    // Anna completes it; the player's balance moves once, and Boris's queue drops it at once.
    await cardOf(a).getByRole('button', { name: 'Адена получена' }).click();
    await a.getByTestId('complete-dialog').getByRole('button', { name: 'Адена получена' }).click();
    await expect.poll(() => cardOf(b).count(), { timeout: 10_000 }).toBe(0);
    const w = await db.selectFrom('wallets').select('balance').where('id', '=', wallet.id).executeTakeFirstOrThrow();
    expect(w.balance).toBe(8n * BigInt(KK));

    // The shift report shows Anna's decision.
    const report = await openAs(anna, '/admin/shift');
    const row = report.getByTestId('shift-row').filter({ hasText: 'Анна' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/Анна1010\s?%/);
    await report.screenshot({ path: join(SCREENSHOTS, 'admin-shift-report.png'), fullPage: true, animations: 'disabled' });
    const reportDark = await openAs(anna, '/admin/shift', { colorScheme: 'dark' });
    await reportDark.getByTestId('shift-row').first().waitFor();
    await reportDark.screenshot({ path: join(SCREENSHOTS, 'admin-shift-report-dark.png'), fullPage: true, animations: 'disabled' });
  });

  it("an operator demoted and given the role back: the queue stops saying it is live, then is live again by itself", async () => {
    // Walk 14: the queue went on saying «очередь в реальном времени» after the demotion and heard nothing after the
    // promotion, until its socket happened to reconnect (the list polled once a minute meanwhile).
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const olga = await createUser(db, { admin: true, name: 'Ольга' });
    const boss = await createUser(db, { admin: true, name: 'Старшая' });
    const player = await createUser(db, { name: 'Вкладчик' });
    await createWallet(db, player.id, sid, 'Depositor');
    const page = await openAs(olga, '/admin');
    const signals = () => page.getByTestId('shift-signals').textContent();
    await expect.poll(signals, { timeout: 10_000 }).toMatch(/очередь в реальном времени/);
    const setAdmin = async (admin: boolean) => {
      // The operator's own code for each change (a grant asks for it); each code is good once.
      await db.updateTable('users').set({ totp_last_step: null }).where('id', '=', boss.id).execute();
      const headers = { ...boss.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) };
      const res = await server.app.inject({ method: 'POST', url: `/api/admin/users/${olga.id}/admin`, headers, payload: { admin } });
      expect(res.statusCode).toBe(200);
    };
    await setAdmin(false);
    await expect.poll(signals, { timeout: 10_000 }).toMatch(/связь восстанавливается/);
    await setAdmin(true);
    // The feed asks for the channel again 5 s after it was taken off, and is let in.
    await expect.poll(signals, { timeout: 30_000 }).toMatch(/очередь в реальном времени/);
    const id = await deposit(player, sid, 2 * KK);
    // From the channel: bounded far under the 60 s the list polls at while the channel is up (the feed is live here).
    await page.getByTestId('admin-request').filter({ hasText: `№${id}` }).waitFor({ timeout: 10_000 });
  });

  it('an operator rejecting a request another operator completed meanwhile is told so in the dialog', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const galina = await createUser(db, { admin: true, name: 'Галина', email: 'galina@example.com' });
    const denis = await createUser(db, { admin: true, name: 'Денис', email: 'denis@example.com' });
    const player = await createUser(db, { name: 'Игрок 2' });
    await createWallet(db, player.id, sid, 'Hero2');
    const g = await openAs(galina, '/admin');
    const d = await openAs(denis, '/admin');
    const id = await deposit(player, sid, 2 * KK);
    const cardOf = (page: typeof g) => page.getByTestId('admin-request').filter({ hasText: `№${id}` });

    await cardOf(d).getByRole('button', { name: 'Отклонить' }).click();
    const dialog = d.getByTestId('reject-dialog');
    await dialog.getByLabel('Причина').fill('Не пришла адена');
    await cardOf(g).getByRole('button', { name: 'Адена получена' }).click();
    await g.getByTestId('complete-dialog').getByRole('button', { name: 'Адена получена' }).click();
    await g.getByText(`Заявка №${id} выполнена`).waitFor();

    await dialog.getByRole('button', { name: 'Отклонить' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('Заявка уже обработана');
    expect(await dialog.isVisible()).toBe(true);
    expect((await db.selectFrom('balance_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('completed');
  });

  it("a claim nobody renewed lapses: another operator's card offers to take it over, and he decides it", async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const gleb = await createUser(db, { admin: true, name: 'Глеб', email: 'gleb@example.com' });
    const zoya = await createUser(db, { admin: true, name: 'Зоя', email: 'zoya@example.com' });
    const player = await createUser(db, { name: 'Игрок 3' });
    const wallet = await createWallet(db, player.id, sid, 'Hero3');
    const id = await deposit(player, sid, 3 * KK);
    expect((await server.app.inject({ method: 'POST', url: `/api/admin/requests/${id}/claim`, headers: gleb.auth, payload: {} })).statusCode).toBe(200);
    // Gleb left 16 minutes ago without renewing it (his queue page was closed).
    await db.updateTable('balance_requests').set({ claimed_at: new Date(Date.now() - 16 * 60_000) }).where('id', '=', id).execute();

    const z = await openAs(zoya, '/admin');
    const card = z.getByTestId('admin-request').filter({ hasText: `№${id}` });
    await expect.poll(() => card.getByTestId('claim-chip').textContent()).toBe('Захват истёк: Глеб');
    expect(await card.getByRole('button', { name: 'Адена получена' }).isDisabled()).toBe(false);
    await card.getByRole('button', { name: 'Взять в работу' }).click();
    await expect.poll(() => card.getByTestId('claim-chip').textContent()).toBe('В работе у вас');
    await card.getByRole('button', { name: 'Адена получена' }).click();
    await z.getByTestId('complete-dialog').getByRole('button', { name: 'Адена получена' }).click();
    await z.getByText(`Заявка №${id} выполнена`).waitFor();
    const r = await db.selectFrom('balance_requests').select(['status', 'processed_by']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(r).toEqual({ status: 'completed', processed_by: zoya.id });
    expect((await db.selectFrom('wallets').select('balance').where('id', '=', wallet.id).executeTakeFirstOrThrow()).balance).toBe(3n * BigInt(KK));
  });

  it("an operator's own deposit shows who decides it instead of the buttons (screenshots at 390 and 1280 px, light and dark)", async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const vera = await createUser(db, { admin: true, name: 'Вера', email: 'vera@example.com' });
    await createWallet(db, vera.id, sid, 'VeraMain');
    const id = await deposit(vera, sid, 2 * KK);
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await openAs(vera, '/admin', { width, colorScheme });
        const card = page.getByTestId('admin-request').filter({ hasText: `№${id}` });
        await card.getByText('Ваша заявка: её выполнит другой оператор').waitFor();
        expect(await card.getByRole('button').filter({ hasText: /Взять в работу|Адена получена|Отклонить/ }).count()).toBe(0);
        await page.screenshot({ path: join(SCREENSHOTS, `admin-queue-own-${width}-${colorScheme}.png`), fullPage: true, animations: 'disabled' });
      }
    }
    expect((await db.selectFrom('balance_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('pending');
  });
});
