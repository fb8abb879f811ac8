import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../server/src/modules/two-factor/totp';
import { post, serviceAccount, walletAccount } from '../../server/src/modules/ledger/ledger.service';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const KK = 1_000_000;

type TestUser = Awaited<ReturnType<typeof createUser>>;

/** A page signed in as the user through the stored token. */
async function openAs(
  server: E2EServer,
  browser: Browser,
  user: TestUser,
  path: string,
  extra: { gamesserverId?: number; width?: number; colorScheme?: 'light' | 'dark' } = {},
) {
  const { context, page } = await newPage(browser, { width: extra.width ?? 1280, height: 900, colorScheme: extra.colorScheme });
  await context.addInitScript(
    ([t, s]) => {
      localStorage.setItem('access_token', t as string);
      if (s) localStorage.setItem('gamesserver_id', s as string);
    },
    [user.token, extra.gamesserverId ? String(extra.gamesserverId) : ''],
  );
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

const socketsOf = async (server: E2EServer, userId: number) => {
  const io = (server.app as unknown as { deps: { realtime: { io: { in(room: string): { fetchSockets(): Promise<unknown[]> } } } } }).deps.realtime.io;
  return (await io.in(`user:${userId}`).fetchSockets()).length;
};

describe('the admin area', () => {
  let server: E2EServer;
  let browser: Browser;
  let admin: TestUser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await createUser(server.db.kysely, { admin: true, name: 'Старший оператор', email: 'operator@example.com' });
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  it('an admin changes a server’s code fee and a player sees the new price at once', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const player = await createUser(db, { name: 'Покупатель' });

    // The player's page is open on the codes tab of that server before the change.
    const p = await openAs(server, browser, player, '/?tab=codes', { gamesserverId: sid });
    contexts.push(p.context);
    await p.page.getByTestId('codes-tab').waitFor();
    const publicFee = () =>
      p.page.evaluate(async (id) => {
        const list = (await (await fetch('/api/gamesservers')).json()) as Array<{ id: number; code_fee_bp: number }>;
        return list.find((s) => s.id === id)?.code_fee_bp;
      }, sid);
    expect(await publicFee()).toBe(300);

    // The admin edits the fee in the servers screen.
    const a = await openAs(server, browser, admin, '/admin/servers');
    contexts.push(a.context);
    await a.page.getByRole('button', { name: 'Изменить Scryde x50' }).click();
    const form = a.page.getByTestId('server-form-dialog');
    await form.getByLabel('Обычная, б.п.').fill('450');
    await form.getByLabel('Для VIP, б.п.').fill('150');
    await form.getByRole('button', { name: 'Сохранить' }).click();
    await form.waitFor({ state: 'hidden' });
    await expect.poll(() => a.page.getByTestId('admin-server-fee').first().textContent()).toBe('4,5% / 1,5%');

    // At once: no cache to wait out, no restart. The public list answers the new fee on the next read…
    expect(await publicFee()).toBe(450);
    // …and the player's page shows it as soon as it reads the server again.
    await p.page.reload();
    await p.page.getByTestId('codes-tab').waitFor();
    await expect.poll(() => p.page.getByRole('button', { name: /VIP — комиссия/ }).textContent()).toContain('1,5%');
    // Price of the first standard nominal (1кк): nominal + 4.5 %, rounded up.
    await expect.poll(() => p.page.getByTestId('nominal').first().getAttribute('aria-label')).toMatch(/1\s045\s000/);
    const [entry] = await db.selectFrom('admin_audit_log').selectAll().where('action', '=', 'gamesserver.update').orderBy('id', 'desc').limit(1).execute();
    expect(entry).toMatchObject({ admin_id: admin.id, before: expect.objectContaining({ code_fee_bp: 300 }), after: expect.objectContaining({ code_fee_bp: 450 }) });
  });

  it('an admin blocks a user and that user’s open page is signed out', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const victim = await createUser(db, { name: 'Нарушитель', email: 'cheater@example.com' });
    const v = await openAs(server, browser, victim, '/', { gamesserverId: sid });
    contexts.push(v.context);
    await v.page.getByRole('button', { name: 'Профиль' }).waitFor();
    // The player's realtime socket is up before the block.
    await expect.poll(() => socketsOf(server, victim.id), { timeout: 15_000 }).toBeGreaterThan(0);

    const a = await openAs(server, browser, admin, '/admin/users');
    contexts.push(a.context);
    await a.page.getByLabel('Поиск').fill('cheater@');
    await a.page.getByTestId('admin-user-row').filter({ hasText: 'cheater@example.com' }).click();
    await a.page.getByRole('button', { name: 'Заблокировать' }).click();
    const dialog = a.page.getByTestId('block-dialog');
    await dialog.getByLabel('Причина (для журнала)').fill('Продал один код двоим');
    await dialog.getByRole('button', { name: 'Заблокировать' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await a.page.getByText('Заблокирован', { exact: true }).first().waitFor();

    // The open page drops its session by itself: no click, no reload.
    await v.page.getByRole('link', { name: 'Войти' }).waitFor({ timeout: 10_000 });
    expect(await v.page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
    expect(await socketsOf(server, victim.id)).toBe(0);
    // The old token is refused by the server too.
    const res = await fetch(`${server.url}/api/ably-token`, { method: 'POST', headers: { ...victim.auth, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });

  it('blocking a stolen account with «Аккаунт угнан» removes its seller key for good (screenshots at 390 and 1280 px, light and dark)', async () => {
    const db = server.db.kysely;
    const stolen = await createUser(db, { name: 'Угнанный', email: 'stolen.account@example.com' });
    const minted = await fetch(`${server.url}/api/api_keys`, { method: 'POST', headers: { ...stolen.auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'вор' }) });
    expect(minted.status).toBe(200);
    const key = { authorization: `Bearer ${((await minted.json()) as { key: string }).key}` };
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const s = await openAs(server, browser, admin, `/admin/users/${stolen.id}`, { width, colorScheme });
        await s.page.getByRole('button', { name: 'Заблокировать' }).click();
        const dialog = s.page.getByTestId('block-dialog');
        await dialog.getByLabel('Причина (для журнала)').fill('Владелец сообщил об угоне');
        await dialog.getByRole('checkbox', { name: /Аккаунт угнан/ }).check();
        await s.page.waitForTimeout(300);
        await s.page.screenshot({ path: `${SCREENSHOTS}/admin-user-block-stolen-${width}-${colorScheme}.png` });
        if (width === 1280 && colorScheme === 'dark') {
          await dialog.getByRole('button', { name: 'Заблокировать' }).click();
          await dialog.waitFor({ state: 'hidden' });
          await s.page.getByText('Заблокирован', { exact: true }).first().waitFor();
        }
        await s.context.close();
      }
    }
    // Unblocked after the owner was checked: the thief's key stays dead.
    const unblocked = await fetch(`${server.url}/api/admin/users/${stolen.id}/unblock`, { method: 'POST', headers: { ...admin.auth, 'content-type': 'application/json' }, body: '{}' });
    expect(unblocked.status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/balance?gamesserver_id=${await firstServerId(db)}`, { headers: key })).status).toBe(401);

    // Blocked first, found stolen later: «Аккаунт угнан…» on the blocked account's card.
    const late = await createUser(db, { name: 'Позже угнанный', email: 'stolen.later@example.com' });
    const lateMinted = await fetch(`${server.url}/api/api_keys`, { method: 'POST', headers: { ...late.auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'вор' }) });
    const lateKey = { authorization: `Bearer ${((await lateMinted.json()) as { key: string }).key}` };
    await db.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', late.id).execute();
    const s = await openAs(server, browser, admin, `/admin/users/${late.id}`, { width: 390 });
    await s.page.getByRole('button', { name: 'Аккаунт угнан…' }).click();
    const dialog = s.page.getByTestId('block-dialog');
    await dialog.getByLabel('Причина (для журнала)').fill('Владелец подтвердил угон');
    await s.page.waitForTimeout(300);
    await s.page.screenshot({ path: `${SCREENSHOTS}/admin-user-stolen-after-block-390-light.png` });
    await dialog.getByRole('button', { name: 'Удалить' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(async () => (await fetch(`${server.url}/api/v1/balance?gamesserver_id=${await firstServerId(db)}`, { headers: lateKey })).status).toBe(401);
    await db.updateTable('users').set({ blocked_at: null }).where('id', '=', late.id).execute();
    expect((await fetch(`${server.url}/api/v1/balance?gamesserver_id=${await firstServerId(db)}`, { headers: lateKey })).status).toBe(401);
    await s.context.close();
  });

  it("support turns off a player's lost second factor with the operator's own code (screenshots at 390 and 1280 px, light and dark)", async () => {
    const db = server.db.kysely;
    const player = await createUser(db, { name: 'Потерял телефон', email: 'lost.phone@example.com', totp: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [390, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const s = await openAs(server, browser, admin, `/admin/users/${player.id}`, { width, colorScheme });
        await s.page.getByRole('button', { name: 'Отключить вход с кодом' }).click();
        const dialog = s.page.getByTestId('two-factor-off-dialog');
        await dialog.waitFor();
        await s.page.waitForTimeout(300);
        await s.page.screenshot({ path: `${SCREENSHOTS}/admin-user-two-factor-off-${width}-${colorScheme}.png` });
        await s.context.close();
      }
    }

    const a = await openAs(server, browser, admin, `/admin/users/${player.id}`);
    contexts.push(a.context);
    await a.page.getByRole('button', { name: 'Отключить вход с кодом' }).click();
    const dialog = a.page.getByTestId('two-factor-off-dialog');
    await dialog.getByLabel('Причина и как проверен владелец').fill('Потерял телефон, личность подтвердил по почте');
    await dialog.getByRole('button', { name: 'Отключить' }).click();
    // The operator's own code, in the shared step-up prompt.
    const prompt = a.page.getByTestId('step-up-dialog');
    const field = prompt.getByTestId('step-up-code');
    await field.waitFor();
    await db.updateTable('users').set({ totp_last_step: null }).where('id', '=', admin.id).execute();
    await field.fill(totpCode(TEST_TOTP_SECRET, new Date()));
    await prompt.getByRole('button', { name: 'Подтвердить' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await a.page.getByText(/^Вход с кодом для «.+» отключён, его сеансы завершены$/).waitFor();
    await a.page.getByRole('button', { name: 'Отключить вход с кодом' }).waitFor({ state: 'detached' });
    const row = await db.selectFrom('users').select('totp_secret').where('id', '=', player.id).executeTakeFirstOrThrow();
    expect(row.totp_secret).toBeNull();
    expect((await fetch(`${server.url}/api/user`, { headers: player.auth })).status).toBe(401);
  });

  it('every admin screen renders at 1280 px (screenshots in docs/screenshots)', async () => {
    const db = server.db.kysely;
    mkdirSync(SCREENSHOTS, { recursive: true });
    const servers = await db.selectFrom('gamesservers').select(['id', 'name', 'cashier_nick']).orderBy('sort_order').execute();
    // A working day's worth of data: funded wallets, pending and finished requests.
    const ago = (min: number) => new Date(Date.now() - min * 60_000);
    const names = ['Алексей', 'Мария', 'Dark_Knight', 'Ольга', 'Тимур'];
    for (const [i, name] of names.entries()) {
      const u = await createUser(db, { name, email: `${['alex', 'maria', 'knight', 'olga', 'timur'][i]}@example.com` });
      if (i === 2) await db.updateTable('users').set({ telegram_id: 5_123_456_789, discord_id: '81234567890123456' }).where('id', '=', u.id).execute();
      if (i === 3) await db.updateTable('users').set({ phone: '+79161234567', vip_until: new Date(Date.now() + 20 * 86_400_000) }).where('id', '=', u.id).execute();
      for (const s of servers.slice(0, 2)) {
        const w = await createWallet(db, u.id, s.id, `${['Alex', 'Mary', 'Knight', 'Olga', 'Timur'][i]}${s.id}`);
        await fund(db, w, BigInt((i + 1) * 37 * KK));
        if (i % 2 === 0) await fund(db, w, BigInt((i + 1) * 120), 2);
        const base = { user_id: u.id, wallet_id: w.id, gamesserver_id: s.id, nick: w.nick ?? 'Hero', cashier_nick: s.cashier_nick };
        const rows = await db
          .insertInto('balance_requests')
          .values([
            { ...base, type: 'input', currency_type: 1, amount: BigInt((i + 2) * 5 * KK), created_at: ago(5 + i * 17) },
            { ...base, type: 'input', currency_type: 1, amount: BigInt(3 * KK), status: 'completed', created_at: ago(200 + i * 30), processed_at: ago(190 + i * 25) },
            { ...base, type: 'output', currency_type: 2, amount: 50n, status: 'rejected', comment: 'Ник не найден в игре', created_at: ago(300), processed_at: ago(260) },
          ])
          .returning(['id', 'status', 'amount'])
          .execute();
        // A completed deposit is credited, as an operator's «Выполнить» does: the ledger audit checks every request against its postings.
        for (const r of rows.filter((r) => r.status === 'completed')) {
          await db.transaction().execute((trx) =>
            post(trx, {
              kind: 'deposit',
              refType: 'balance_request',
              refId: r.id,
              legs: [
                { account: serviceAccount('cash', s.id, 1), amount: -r.amount },
                { account: walletAccount(w.id, s.id, 1), amount: r.amount },
              ],
            }),
          );
        }
      }
    }
    const a = await openAs(server, browser, admin, '/admin');
    contexts.push(a.context);
    const shot = async (page: Page, name: string) => {
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
    };

    await a.page.getByTestId('dashboard-oldest').waitFor();
    await a.page.getByTestId('admin-request').first().waitFor();
    expect(await a.page.getByTestId('dashboard-pending-total').textContent()).toContain('10');
    await shot(a.page, 'admin-dashboard');

    await a.page.getByRole('link', { name: 'Серверы' }).click();
    await a.page.getByTestId('admin-server-row').first().waitFor();
    expect(await a.page.getByTestId('admin-server-row').count()).toBe(servers.length);
    await shot(a.page, 'admin-servers');
    // Hiding a server asks first; «Отмена» leaves it visible.
    await a.page.getByLabel(`${servers[0]!.name}: виден игрокам`).click();
    const hide = a.page.getByTestId('server-visibility-dialog');
    await hide.getByText('новые заявки и активации кодов на нём будут отклоняться').waitFor();
    await a.page.screenshot({ path: join(SCREENSHOTS, 'admin-server-hide.png'), animations: 'disabled' });
    await hide.getByRole('button', { name: 'Отмена' }).click();
    await hide.waitFor({ state: 'hidden' });
    expect(await a.page.getByLabel(`${servers[0]!.name}: виден игрокам`).isChecked()).toBe(true);
    await a.page.getByRole('button', { name: 'Добавить сервер' }).click();
    const form = a.page.getByTestId('server-form-dialog');
    await form.getByLabel('Название').fill('Новый x3');
    await form.getByLabel('Пополнение, адена: от').fill('10кк');
    await form.getByLabel('Пополнение, адена: до').fill('1кк');
    await form.getByRole('button', { name: 'Добавить' }).click();
    // The contract's rules in the browser: the same Russian messages as the server's.
    await form.getByText('Максимум не меньше минимума').waitFor();
    await a.page.screenshot({ path: join(SCREENSHOTS, 'admin-servers-form.png'), animations: 'disabled' });
    await form.getByRole('button', { name: 'Отмена' }).click();

    await a.page.getByRole('link', { name: 'Пользователи' }).click();
    await a.page.getByTestId('admin-user-row').first().waitFor();
    await shot(a.page, 'admin-users');
    await a.page.getByTestId('admin-user-row').filter({ hasText: 'maria@example.com' }).click();
    await a.page.getByTestId('user-wallets').waitFor();
    await shot(a.page, 'admin-user');

    await a.page.getByRole('link', { name: 'Учёт' }).click();
    await a.page.getByTestId('ledger-totals-row').first().waitFor();
    await a.page.getByRole('button', { name: 'Проверить журнал' }).click();
    await expect.poll(() => a.page.getByTestId('ledger-audit-verdict').textContent()).toContain('Журнал сходится');
    await shot(a.page, 'admin-ledger');
    await a.page.getByTestId('ledger-totals-row').first().getByRole('link').last().click();
    await a.page.locator('[data-view="admin-account"]').waitFor();
    await shot(a.page, 'admin-ledger-account');

    await a.page.getByRole('link', { name: 'Журнал действий' }).click();
    await a.page.getByTestId('audit-row').first().waitFor();
    expect(await a.page.getByTestId('audit-row').count()).toBeGreaterThanOrEqual(2);
    await shot(a.page, 'admin-audit');

    // Codes and incidents: an activated code tried again by a third player.
    const inject = (who: TestUser, url: string, payload: object) =>
      server.app.inject({ method: 'POST', url, headers: who.auth, payload }).then((r) => {
        expect(r.statusCode, `${url} ${r.body}`).toBeLessThan(500);
        return r.json();
      });
    const sid = servers[0]!.id;
    const seller = await createUser(db, { name: 'Продавец Олег', email: 'oleg.seller@example.com' });
    const buyer = await createUser(db, { name: 'Покупатель 1' });
    const third = await createUser(db, { name: 'Покупатель 2' });
    const sw = await createWallet(db, seller.id, sid, 'OlegShop');
    await fund(db, sw, 100n * BigInt(KK));
    await createWallet(db, buyer.id, sid, 'Buyer1');
    await createWallet(db, third.id, sid, 'Buyer2');
    const sold = await inject(seller, '/api/show_code/', { gamesserver_id: sid, nominal: 5 * KK, wallet_id: sw.id });
    await inject(buyer, '/api/activation_code/', { sert: sold.sert });
    await inject(third, '/api/activation_code/', { sert: sold.sert });
    const open = await inject(seller, '/api/show_code/', { gamesserver_id: sid, nominal: 10 * KK, wallet_id: sw.id });

    await a.page.getByRole('link', { name: 'Инциденты' }).click();
    const row = a.page.getByTestId('admin-incident-row').first();
    await row.waitFor();
    await row.getByRole('button', { name: 'Закрыть с заметкой' }).click();
    const resolve = a.page.getByTestId('resolve-incident-dialog');
    await resolve.getByLabel('Заметка').fill('Продавец отдал код двоим; второму покупателю вернули деньги вручную');
    await resolve.getByRole('button', { name: 'Закрыть инцидент' }).click();
    await resolve.waitFor({ state: 'hidden' });
    await expect.poll(() => row.getByTestId('incident-resolution').textContent()).toContain('второму покупателю');
    await a.page.getByText(/Инцидент №\d+ закрыт/).waitFor({ state: 'hidden' });
    await shot(a.page, 'admin-incidents');

    // The incident links to its code's whole story.
    await row.getByRole('link', { name: /ADN-/ }).click();
    await a.page.getByTestId('admin-code').waitFor();
    expect(await a.page.getByTestId('admin-code').textContent()).toContain('Активирован');
    await shot(a.page, 'admin-codes');

    // An open code found by number is cancelled with its price back to the seller.
    await a.page.getByLabel('Код или номер кода').fill(String(open.code_id));
    await a.page.getByRole('button', { name: 'Найти' }).click();
    await a.page.getByRole('button', { name: 'Отменить с возвратом' }).click();
    const cancel = a.page.getByTestId('admin-cancel-code-dialog');
    await cancel.getByLabel('Причина (для журнала)').fill('Просьба продавца');
    await cancel.getByRole('button', { name: 'Отменить код' }).click();
    await cancel.waitFor({ state: 'hidden' });
    await expect.poll(() => a.page.getByTestId('admin-code').textContent()).toContain('Отменён');
    const wallet = await db.selectFrom('wallets').select('balance').where('id', '=', sw.id).executeTakeFirstOrThrow();
    expect(wallet.balance).toBe(100n * BigInt(KK) - BigInt(sold.summa));

    // Players see the median next to the put and take buttons.
    const player = await createUser(db);
    server.app.deps.system.gameServersChanged();
    const p = await openAs(server, browser, player, '/', { gamesserverId: servers[0]!.id });
    contexts.push(p.context);
    await expect.poll(() => p.page.getByTestId('median-processing').textContent(), { timeout: 10_000 }).toMatch(/^Обычно обрабатываем около \d+\s+мин$/);
  });
});
