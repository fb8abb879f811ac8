import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { webhookSecretOf } from './telegram-bot';

const KK = 1_000_000;
const BOT_TOKEN = '123456:TEST-token_for-local-bot';

interface SentMessage {
  token: string;
  chat_id: number;
  text: string;
}

/** A local HTTP server that speaks the Bot API's sendMessage and records what it was asked to send. */
async function startFakeBotApi() {
  const sent: SentMessage[] = [];
  const webhooks: Array<{ token: string; url: string; secret_token?: string }> = [];
  let failNext = false;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      const hook = /^\/bot([^/]+)\/setWebhook$/.exec(req.url ?? '');
      if (hook && req.method === 'POST') {
        webhooks.push({ token: hook[1]!, ...(JSON.parse(raw) as { url: string; secret_token?: string }) });
        res.end(JSON.stringify({ ok: true, result: true, description: 'Webhook was set' }));
        return;
      }
      const m = /^\/bot([^/]+)\/sendMessage$/.exec(req.url ?? '');
      if (!m || req.method !== 'POST') {
        res.statusCode = 404;
        res.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
        return;
      }
      if (failNext) {
        failNext = false;
        res.statusCode = 403;
        res.end(JSON.stringify({ ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' }));
        return;
      }
      const body = JSON.parse(raw) as { chat_id: number; text: string };
      sent.push({ token: m[1]!, chat_id: body.chat_id, text: body.text });
      res.end(JSON.stringify({ ok: true, result: { message_id: sent.length, date: 0, chat: { id: body.chat_id, type: 'private' }, text: body.text } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    webhooks,
    failOnce: () => {
      failNext = true;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function waitFor<T>(find: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(DB_KINDS)('Telegram subscription and balance notices on %s', (kind) => {
  let t: TestApp;
  let bot: Awaited<ReturnType<typeof startFakeBotApi>>;
  let serverId: number;
  const secret = webhookSecretOf(BOT_TOKEN);
  const webhook = (text: string, chatId: number, path = secret) =>
    t.app.inject({
      method: 'POST',
      url: `/api/telegram/webhook/${path}`,
      payload: { update_id: Date.now(), message: { message_id: 1, date: 0, chat: { id: chatId, type: 'private' }, from: { id: chatId }, text } },
    });

  beforeAll(async () => {
    bot = await startFakeBotApi();
    t = await createTestApp(kind, {
      env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url, PUBLIC_URL: 'https://wallet.example/' },
    });
    serverId = await firstServerId(t.db.kysely);
  });
  afterAll(async () => {
    await t.close();
    await bot.close();
  });

  it('registers its webhook with Telegram at start, under the secret path and secret header', async () => {
    const hook = await waitFor(() => bot.webhooks[0], 'setWebhook');
    expect(hook).toMatchObject({ token: BOT_TOKEN, url: `https://wallet.example/api/telegram/webhook/${secret}`, secret_token: secret });
  });

  it('links a chat through the one-time /start link and sends a notice once per crossing of the limit', async () => {
    const u = await createUser(t.db.kysely);
    const link = (await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json();
    expect(link.linked).toBe(false);
    const m = /^https:\/\/t\.me\/adena_test_bot\?start=([\w-]{20,64})$/.exec(link.url);
    expect(m).not.toBeNull();
    const token = m![1]!;

    expect((await webhook(`/start ${token}`, 777001, 'not-the-secret')).statusCode).toBe(404);
    const linked = await webhook(`/start ${token}`, 777001);
    expect(linked.statusCode).toBe(200);
    expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow()).telegram_chat_id).toBe(
      777001n,
    );
    expect(bot.sent.at(-1)).toMatchObject({ token: BOT_TOKEN, chat_id: 777001, text: expect.stringContaining('Готово') });
    expect((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().linked).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/api/user', headers: u.auth })).statusCode).not.toBe(500);

    // The same link a second time (someone else's chat) links nothing.
    await webhook(`/start ${token}`, 888002);
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 888002, text: expect.stringContaining('устарела') });
    expect((await t.db.kysely.selectFrom('users').select('id').where('telegram_chat_id', '=', 888002n).execute()).length).toBe(0);

    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    await t.app.inject({ method: 'POST', url: '/api/add_limit_otvetka/', headers: u.auth, payload: { gamesserver_id: serverId, telegram_price: 5 * KK } });
    const show = (nominal: number) =>
      t.app.inject({ method: 'POST', url: '/api/show_code/', headers: u.auth, payload: { gamesserver_id: serverId, nominal, wallet_id: w.id } });
    const before = bot.sent.length;
    expect((await show(4 * KK)).statusCode).toBe(200); // 10 → 5.88: above the limit
    expect((await show(KK)).statusCode).toBe(200); // → 4.85: crosses
    const notice = await waitFor(() => bot.sent.slice(before).find((s) => s.text.includes('опустился ниже')), 'the balance notice');
    expect(notice).toMatchObject({ chat_id: 777001, text: expect.stringContaining('5 000 000 аден') });
    expect((await show(KK)).statusCode).toBe(200); // → 3.82: still below, no second message
    await waitFor(async () => {
      const rows = await t.db.kysely.selectFrom('telegram_notices').select('status').where('user_id', '=', u.id).execute();
      return rows.length === 1 && rows[0]!.status === 'sent' ? rows : undefined;
    }, 'the notice to be marked sent');
    expect(bot.sent.slice(before).filter((s) => s.text.includes('опустился ниже'))).toHaveLength(1);

    // Back above the limit and down again: a new crossing, a new message; a failure is recorded.
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    bot.failOnce();
    expect((await show(10 * KK)).statusCode).toBe(200);
    await waitFor(async () => {
      const rows = await t.db.kysely.selectFrom('telegram_notices').selectAll().where('user_id', '=', u.id).orderBy('id').execute();
      return rows.length === 2 && rows[1]!.status === 'failed' ? rows : undefined;
    }, 'the failed notice');

    // /stop unlinks the chat.
    await webhook('/stop', 777001);
    expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow()).telegram_chat_id).toBeNull();
  });

  it('a withdrawal that takes the balance below the limit sends the notice too', async () => {
    const u = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ telegram_chat_id: 777123 }).where('id', '=', u.id).execute();
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    await t.app.inject({ method: 'POST', url: '/api/add_limit_otvetka/', headers: u.auth, payload: { gamesserver_id: serverId, telegram_price: 8 * KK } });
    const before = bot.sent.length;
    const res = await t.app.inject({ method: 'POST', url: '/api/down_balance_user/', headers: u.auth, payload: { gamesserver_id: serverId, amount: 3 * KK } });
    expect(res.statusCode).toBe(200);
    const notice = await waitFor(() => bot.sent.slice(before).find((s) => s.chat_id === 777123), 'the withdrawal notice');
    expect(notice.text).toContain('сейчас 7 000 000 аден');
  });

  it('ignores updates that are not messages and answers Telegram 200', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/telegram/webhook/${secret}`, payload: { update_id: 1, edited_message: {} } });
    expect(res.statusCode).toBe(200);
    const wrongHeader = await t.app.inject({
      method: 'POST',
      url: `/api/telegram/webhook/${secret}`,
      headers: { 'x-telegram-bot-api-secret-token': 'wrong' },
      payload: { update_id: 2 },
    });
    expect(wrongHeader.statusCode).toBe(404);
  });
});
