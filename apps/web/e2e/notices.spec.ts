import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../server/test/factories';
import { startFakeBotApi } from '../../server/test/fakes/telegram-bot-api';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

// `npm run screenshots` writes them into docs/screenshots; a plain test run keeps the tree clean.
const SCREENSHOTS = process.env.SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : join(tmpdir(), 'adena-screenshots');
const BOT_TOKEN = '123456:E2E-notices-bot-token';

describe('Telegram notices: a linked chat is unlinked from the wallet page', () => {
  let server: E2EServer;
  let browser: Browser;
  let bot: Awaited<ReturnType<typeof startFakeBotApi>>;
  const db = () => server.db.kysely;

  beforeAll(async () => {
    bot = await startFakeBotApi();
    [server, browser] = await Promise.all([
      startServer({ env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await bot?.close();
  });

  it('shows the linked chat with «Отключить Telegram»; unlinked, the chat is told and the dialog offers the bot again (screenshots)', async () => {
    const sid = await firstServerId(db());
    const u = await createUser(db(), { name: 'Игрок Уведомления' });
    await createWallet(db(), u.id, sid, 'Notice');
    for (const [width, colorScheme] of [
      [390, 'light'],
      [390, 'dark'],
      [1280, 'light'],
      [1280, 'dark'],
    ] as const) {
      const chatId = 900_000 + width + (colorScheme === 'dark' ? 1 : 0);
      await db().updateTable('users').set({ telegram_chat_id: BigInt(chatId) }).where('id', '=', u.id).execute();
      const { context, page } = await newPage(browser, { width, height: width === 390 ? 844 : 900, colorScheme });
      await context.addInitScript(
        ([t, s]) => {
          localStorage.setItem('access_token', t as string);
          localStorage.setItem('gamesserver_id', s as string);
        },
        [u.token, String(sid)],
      );
      await page.goto(`${server.url}/?tab=codes`);
      await page.getByRole('button', { name: 'Уведомления в Telegram' }).click();
      const dialog = page.getByTestId('subscribe-telegram-dialog');
      await dialog.getByText('Telegram подключён.').waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${SCREENSHOTS}/telegram-notices-linked-${width}-${colorScheme}.png` });

      await dialog.getByRole('button', { name: 'Отключить Telegram' }).click();
      await dialog.getByRole('link', { name: 'Подключить Telegram' }).waitFor();
      expect(await dialog.getByText('Telegram подключён.').count()).toBe(0);
      const row = await db().selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow();
      expect(row.telegram_chat_id).toBeNull();
      // The chat is told through the job queue after the unlink's COMMIT, so maybe after the page has changed.
      await expect.poll(() => bot.sent.filter((m) => m.chat_id === chatId).map((m) => m.text)).toEqual([expect.stringContaining('Уведомления отключены на сайте')]);
      await context.close();
    }
  });
});
