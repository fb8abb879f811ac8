import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

const digits = (s: string | null) => (s ?? '').replace(/\D/g, '');

/** A player's page on the codes tab of the given server, signed in through the stored token. */
async function openCodes(browser: Browser, url: string, token: string, serverId: number, opts: Parameters<typeof newPage>[1] = {}) {
  const { context, page } = await newPage(browser, opts);
  await context.addInitScript(
    ([t, s]) => {
      localStorage.setItem('access_token', t as string);
      localStorage.setItem('gamesserver_id', s as string);
    },
    [token, String(serverId)],
  );
  await page.goto(`${url}/?tab=codes`);
  await page.getByTestId('codes-tab').waitFor();
  return { context, page };
}

const live = (page: Page) => expect.poll(() => page.getByTestId('realtime-indicator').getAttribute('data-state'), { timeout: 15_000 }).toBe('connected');

describe('two players and a gift code', () => {
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

  it('one issues a code, another activates it, the first sees it activated without a reload; a second try opens the first’s error-code dialog', async (ctx) => {
    // Reported as skipped, not passed, while the server lacks the calls this story needs.
    const missing = ['GET /api/user', 'GET /api/wallets', 'GET /api/auth_varianty_adeny_za_kod/:id', 'POST /api/show_code/', 'POST /api/activation_code/'].filter(
      (r) => {
        const [method, url] = r.split(' ') as ['GET' | 'POST', string];
        return !server.app.hasRoute({ method, url });
      },
    );
    if (missing.length) ctx.skip(`the server does not have ${missing.join(', ')} yet`);
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const seller = await createUser(db);
    await fund(db, await createWallet(db, seller.id, sid, 'Seller'), 100_000_000n);
    const buyer = await createUser(db);
    await createWallet(db, buyer.id, sid, 'Buyer');

    const a = await openCodes(browser, server.url, seller.token, sid);
    const b = await openCodes(browser, server.url, buyer.token, sid);
    contexts.push(a.context, b.context);
    await Promise.all([live(a.page), live(b.page)]);

    // The seller reveals a code of the first standard nominal: the confirmation states its price.
    const tile = a.page.getByTestId('nominal').first();
    const label = (await tile.getAttribute('aria-label')) ?? '';
    await tile.click();
    const dialog = a.page.getByTestId('show-code-dialog');
    const price = digits(await dialog.getByTestId('show-code-price').textContent());
    expect(label.replace(/\s/g, ' ')).toContain(`за ${Number(price).toLocaleString('ru-RU').replace(/\s/g, ' ')}`);
    await dialog.getByRole('button', { name: /^Оплатить/ }).click();
    const sert = (await dialog.getByTestId('revealed-sert').textContent())?.trim() ?? '';
    expect(sert).toMatch(/^[A-Z0-9-]{16,}$/);
    await dialog.getByRole('button', { name: 'Готово' }).click();
    const mine = a.page.getByTestId('my-code').filter({ hasText: sert });
    await expect.poll(() => mine.getAttribute('data-status')).toBe('active');
    const sellerBalance = digits(await a.page.getByTestId('codes-balance').textContent());
    expect(Number(sellerBalance)).toBe(100_000_000 - Number(price));

    // The buyer activates it in another browser context.
    await b.page.getByTestId('activation-input').fill(sert.toLowerCase());
    await b.page.getByRole('button', { name: 'Активировать' }).click();
    await expect.poll(() => b.page.getByRole('alert').filter({ hasText: 'Код активирован' }).count()).toBe(1);
    await expect.poll(async () => Number(digits(await b.page.getByTestId('codes-balance').textContent()))).toBeGreaterThan(0);

    // The seller's open page learns it at once: the notice, and the code leaves the open list.
    await expect.poll(() => a.page.getByRole('alert').filter({ hasText: /Ваш код на .* активирован/ }).count(), { timeout: 5_000 }).toBe(1);
    await expect.poll(async () => ((await mine.count()) === 0 ? 'gone' : await mine.getAttribute('data-status'))).toMatch(/^(gone|activated)$/);

    // A second activation: the buyer sees the error for about a second, the seller gets the error-code dialog.
    await b.page.getByTestId('activation-input').fill(sert);
    await b.page.getByRole('button', { name: 'Активировать' }).click();
    const alert = b.page.getByTestId('alert-dialog');
    await alert.waitFor({ state: 'visible' });
    await alert.waitFor({ state: 'hidden', timeout: 2_500 });

    const incident = a.page.getByTestId('error-code-dialog');
    await incident.waitFor({ state: 'visible', timeout: 5_000 });
    await expect.poll(() => incident.textContent()).toContain(sert);
    await incident.getByRole('button', { name: 'Понятно' }).click();
    await incident.waitFor({ state: 'hidden' });
  });
});
