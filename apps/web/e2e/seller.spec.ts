import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen, readBody } from '../../server/test/fakes/http';
import { createUser, createWallet, firstServerId, fund } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');

describe('the sellers’ keys and webhook', () => {
  let server: E2EServer;
  let browser: Browser;
  const hits: { headers: Record<string, string>; body: string }[] = [];
  const receiver = createServer(async (req, res) => {
    hits.push({ headers: req.headers as Record<string, string>, body: await readBody(req) });
    res.statusCode = 204;
    res.end();
  });
  let hookUrl = '';

  beforeAll(async () => {
    // The receiver listens on loopback, which only this setting lets a webhook reach.
    [server, browser] = await Promise.all([startServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }), launchBrowser()]);
    hookUrl = `${await listen(receiver)}/adena-hook`;
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await closeServer(receiver);
  });

  it('a seller creates a key and a webhook in the profile and sees the test delivery in the log', async () => {
    const db = server.db.kysely;
    const seller = await createUser(db, { name: 'Продавец' });
    const sid = await firstServerId(db);
    await fund(db, await createWallet(db, seller.id, sid), 50_000_000n);
    const { context, page } = await newPage(browser, { width: 1280, height: 900 });
    await context.addInitScript((t) => localStorage.setItem('access_token', t as string), seller.token);
    await page.goto(`${server.url}/profile`);

    await page.getByLabel('Название ключа').fill('FunPay-бот');
    await page.getByRole('button', { name: 'Создать ключ' }).click();
    const key = (await page.getByTestId('secret-value').textContent())!;
    expect(key).toMatch(/^aw_/);
    await expect.poll(() => page.getByRole('list', { name: 'API-ключи' }).textContent()).toContain('FunPay-бот');
    // The key shown once works for the seller's program.
    const balance = await fetch(`${server.url}/api/v1/balance?gamesserver_id=${sid}`, { headers: { authorization: `Bearer ${key}` } });
    expect(await balance.json()).toMatchObject({ gamesserver_id: sid, balance: 50_000_000 });
    await page.getByTestId('shown-once').getByRole('button', { name: 'Закрыть' }).click();

    await page.getByLabel('Адрес (https://…)').fill(hookUrl);
    await page.getByRole('button', { name: 'Подключить вебхук' }).click();
    const secret = (await page.getByTestId('secret-value').textContent())!;
    expect(secret).toMatch(/^whsec_/);

    await page.getByRole('button', { name: 'Отправить тест' }).click();
    await page.getByTestId('delivery-row').getByText('Доставлено').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('delivery-row').first().textContent()).toContain('204');
    expect(hits).toHaveLength(1);
    expect(new Webhook(secret).verify(hits[0]!.body, hits[0]!.headers)).toMatchObject({ type: 'ping' });

    for (const width of [390, 1280]) {
      for (const scheme of ['light', 'dark'] as const) {
        const p = await newPage(browser, { width, height: 900, colorScheme: scheme });
        await p.context.addInitScript((t) => localStorage.setItem('access_token', t as string), seller.token);
        await p.page.goto(`${server.url}/profile`);
        await p.page.getByTestId('delivery-row').first().waitFor();
        await p.page.screenshot({ path: join(SCREENSHOTS, `seller-profile-${width}-${scheme}.png`), fullPage: true, animations: 'disabled' });
        await p.page.goto(`${server.url}/sellers`);
        await p.page.getByRole('heading', { name: 'Для продавцов', level: 1 }).waitFor();
        await p.page.screenshot({ path: join(SCREENSHOTS, `seller-page-${width}-${scheme}.png`), fullPage: true, animations: 'disabled' });
        await p.context.close();
      }
    }
    await context.close();
  });
});
