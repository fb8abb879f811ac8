import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { startFakeBotApi, waitFor } from '../../../test/fakes/telegram-bot-api';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';
import { totpCode } from '../two-factor/totp';
import { webhookSecretOf } from './telegram-bot';
import { unlinkTelegramChat } from './telegram-subscriptions.service';
import { SET_WEBHOOK_JOB } from './telegram-webhook.routes';

const KK = 1_000_000;
const BOT_TOKEN = '123456:TEST-token_for-local-bot';

describe.each(DB_KINDS)('Telegram subscription and balance notices on %s', (kind) => {
  let t: TestApp;
  let bot: Awaited<ReturnType<typeof startFakeBotApi>>;
  let serverId: number;
  const secret = webhookSecretOf(BOT_TOKEN);
  const webhook = (text: string, chatId: number, header: string | null = secret) =>
    t.app.inject({
      method: 'POST',
      url: '/api/telegram/webhook',
      headers: header === null ? {} : { 'x-telegram-bot-api-secret-token': header },
      payload: { update_id: Date.now(), message: { message_id: 1, date: 0, chat: { id: chatId, type: 'private' }, from: { id: chatId }, text } },
    });

  beforeAll(async () => {
    bot = await startFakeBotApi();
    t = await createTestApp(kind, {
      env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url, PUBLIC_URL: 'https://wallet.example/' },
    });
    serverId = await firstServerId(t.db.kysely);
    // Notices go out through the job queue, whose worker runs while a server listens.
    await t.app.deps.jobs.start();
  });
  afterAll(async () => {
    await t.close();
    await bot.close();
  });

  it('registers its webhook with Telegram at start: the secret goes in the header, never in the URL', async () => {
    const hook = await waitFor(() => bot.webhooks[0], 'setWebhook');
    expect(hook).toMatchObject({ token: BOT_TOKEN, url: 'https://wallet.example/api/telegram/webhook', secret_token: secret });
  });

  it('links a chat through the one-time /start link and sends a notice once per crossing of the limit', async () => {
    const u = await createUser(t.db.kysely);
    const link = (await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json();
    expect(link.linked).toBe(false);
    const m = /^https:\/\/t\.me\/adena_test_bot\?start=([\w-]{20,64})$/.exec(link.url);
    expect(m).not.toBeNull();
    const token = m![1]!;

    // Without the secret header, or with another, the link is not used: the owner's link still works after.
    expect((await webhook(`/start ${token}`, 666001, null)).statusCode).toBe(404);
    expect((await webhook(`/start ${token}`, 666001, 'not-the-secret')).statusCode).toBe(404);
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
    expect(notice).toMatchObject({ chat_id: 777001, text: expect.stringContaining('5\u00a0000\u00a0000 аден') });
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

  // PGlite runs one transaction at a time: a held row lock there would hold the delivery for good.
  it.skipIf(kind === 'pglite')("a /start link used while the owner's reset holds their row waits for the reset before it takes the link (the reset's order: no deadlock)", async () => {
    const u = await createUser(t.db.kysely);
    const token = /start=(.+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
    // A password reset (or a block of a stolen account): the user's row first, then their Telegram links.
    const reset = await holdLocks(
      t.db.kysely,
      (trx) => sql`SELECT 1 FROM users WHERE id = ${u.id} FOR UPDATE`.execute(trx),
      (trx) => unlinkTelegramChat(trx, u.id),
    );
    const start = webhook(`/start ${token}`, 556001);
    // The /start is at the lock it takes first, the owner's row (lockOwnerOfLinkToken), held by the reset.
    // Were the link taken first, it would wait on the reset at its later `update "users"` instead, never here.
    await vi.waitFor(async () => expect(await lockWaits(t.db.kysely, '%from users%for no key update%')).toBe(1), { timeout: 10_000, interval: 20 });
    // The link is not taken meanwhile: the reset can still drop it.
    const linkFree = await t.db.kysely
      .transaction()
      .execute(async (trx) => (await sql`SELECT token_hash FROM telegram_link_tokens WHERE token_hash = ${hashToken(token)} FOR UPDATE NOWAIT`.execute(trx)).rows.length)
      .catch((err: { code?: string }) => err.code);
    expect(linkFree).toBe(1);
    await reset.release();
    expect((await start).statusCode).toBe(200);
    expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow()).telegram_chat_id).toBeNull();
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 556001, text: expect.stringContaining('устарела') });
  });

  it('one link used ends the others: an old link opened later in another chat moves nothing; a new one moves the notices and tells the old chat', async () => {
    const u = await createUser(t.db.kysely);
    const tokenOf = async () => /start=(.+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
    const chat = async () => (await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow()).telegram_chat_id;
    const older = await tokenOf(); // the dialog opened on another device, or left open on a shared computer
    const mine = await tokenOf();
    await webhook(`/start ${mine}`, 555001);
    expect(await chat()).toBe(555001n);

    await webhook(`/start ${older}`, 555002);
    expect(await chat()).toBe(555001n);
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 555002, text: expect.stringContaining('устарела') });

    // The owner links another chat on purpose with a fresh link: the first chat hears that the notices left it.
    await webhook(`/start ${await tokenOf()}`, 555003);
    expect(await chat()).toBe(555003n);
    // Through the job queue (its worker runs here), so Telegram's 429 or a moment's outage does not drop it.
    const told = await waitFor(() => bot.sent.find((m) => m.chat_id === 555001 && m.text.includes('перенесены')), 'the old chat to be told');
    expect(told.text).toBe(
      'Уведомления кошелька перенесены в другой чат Telegram. Если это сделали не вы, отключите их на сайте («Уведомления в Telegram» на вкладке «Коды») и смените пароль.',
    );
  });

  it("a TOTP player's link to the bot needs the code: a stolen session cannot tie the thief's chat to the owner's notices", async () => {
    const u = await createUser(t.db.kysely, { totp: true });
    const link = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: { ...u.auth, ...headers } });
    for (const extra of [{}, { 'x-two-factor-code': '000000' }] as Record<string, string>[]) {
      const refused = await link(extra);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().two_factor_required).toBe(true);
      expect(refused.body).not.toMatch(/start=/);
    }
    expect(await t.db.kysely.selectFrom('telegram_link_tokens').select('user_id').where('user_id', '=', u.id).execute()).toEqual([]);
    // The owner's code gives the link, and this session asks no more for 10 minutes.
    const given = await link({ 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()) });
    expect(given.statusCode).toBe(200);
    expect(given.json().url).toMatch(/start=/);
    expect((await link()).statusCode).toBe(200);
  });

  it('unlinks the chat from the site: the chat is told, later notices stay unsent, another player\u2019s chat stays linked', async () => {
    const link = async (u: Awaited<ReturnType<typeof createUser>>, chatId: number) => {
      const token = /start=([\w-]+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
      expect((await webhook(`/start ${token}`, chatId)).statusCode).toBe(200);
    };
    const u = await createUser(t.db.kysely);
    const other = await createUser(t.db.kysely);
    await link(u, 777301);
    await link(other, 777302);
    const unlink = (who: { auth: Record<string, string> } | null) =>
      t.app.inject({ method: 'DELETE', url: '/api/telegram_link', headers: who ? who.auth : {} });

    expect((await unlink(null)).statusCode).toBe(401);
    const res = await unlink(u);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ linked: false });
    await waitFor(() => bot.sent.find((m) => m.chat_id === 777301 && m.text.includes('Уведомления отключены на сайте')), 'the chat to be told (the job queue)');
    expect((await t.app.inject({ method: 'GET', url: '/api/user', headers: u.auth })).json().telegram_linked).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json()).toMatchObject({ linked: false, url: expect.stringMatching(/start=/) });
    // Only the caller's chat: the other player's stays, and a second unlink is harmless (no message to anyone).
    const sentBefore = bot.sent.length;
    expect((await unlink(u)).json()).toEqual({ linked: false });
    expect(bot.sent.length).toBe(sentBefore);
    expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', other.id).executeTakeFirstOrThrow()).telegram_chat_id).toBe(777302n);

    // A crossing after the unlink is recorded without a chat; nothing goes to the old one.
    const w = await createWallet(t.db.kysely, u.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    await t.app.inject({ method: 'POST', url: '/api/add_limit_otvetka/', headers: u.auth, payload: { gamesserver_id: serverId, telegram_price: 5 * KK } });
    expect((await t.app.inject({ method: 'POST', url: '/api/show_code/', headers: u.auth, payload: { gamesserver_id: serverId, nominal: 6 * KK, wallet_id: w.id } })).statusCode).toBe(200);
    const notices = await t.db.kysely.selectFrom('telegram_notices').select(['status', 'chat_id']).where('user_id', '=', u.id).execute();
    expect(notices).toEqual([{ status: 'no_chat', chat_id: null }]);
    expect(bot.sent.filter((m) => m.chat_id === 777301 && m.text.includes('опустился ниже'))).toEqual([]);
  });

  it('greets a plain /start (the bot opened by its name) with what it does and where on the site to turn it on; an old link says the same way', async () => {
    const u = await createUser(t.db.kysely);
    const before = bot.sent.length;
    expect((await webhook('/start', 777501)).statusCode).toBe(200);
    const [hello] = bot.sent.slice(before);
    expect(hello).toMatchObject({ chat_id: 777501 });
    expect(hello!.text).toMatch(/^Здравствуйте! Этот бот присылает уведомления кошелька адены/);
    expect(hello!.text).toContain('https://wallet.example/?tab=codes');
    expect(hello!.text).toContain('«Уведомления в Telegram»');
    expect(hello!.text).not.toMatch(/устарела|использована|Подписаться/);
    expect((await t.db.kysely.selectFrom('users').select('id').where('telegram_chat_id', '=', 777501n).execute()).length).toBe(0);

    // A link that was spent or has expired names the site's real button.
    const token = /start=([\w-]+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
    expect((await webhook(`/start ${token}`, 777502)).statusCode).toBe(200);
    expect((await webhook(`/start ${token}`, 777503)).statusCode).toBe(200);
    const stale = bot.sent.filter((m) => m.chat_id === 777503).at(-1)!.text;
    expect(stale).toMatch(/^Ссылка устарела или уже использована\./);
    expect(stale).toContain('«Уведомления в Telegram»');
    expect(stale).toContain('https://wallet.example/?tab=codes');
    expect(stale).not.toContain('Подписаться');
  });

  it('keeps the /start link usable when linking the chat fails, so Telegram\u2019s redelivery links it', async () => {
    const u = await createUser(t.db.kysely);
    const token = /start=([\w-]+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
    // The database refuses the first write of this user's chat (a sequence is not rolled back with the failure).
    await sql.raw(`
      CREATE SEQUENCE chat_write_${u.id};
      CREATE FUNCTION chat_write_fails_once_${u.id}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = ${u.id} AND nextval('chat_write_${u.id}') = 1 THEN RAISE EXCEPTION 'disk full' USING ERRCODE = '53100'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER chat_write_fails_once_${u.id} BEFORE UPDATE OF telegram_chat_id ON users FOR EACH ROW EXECUTE FUNCTION chat_write_fails_once_${u.id}();
    `).execute(t.db.kysely);
    try {
      const failed = await webhook(`/start ${token}`, 777201);
      expect(failed.statusCode).toBeGreaterThanOrEqual(500); // Telegram delivers a non-2xx update again
      const again = await webhook(`/start ${token}`, 777201);
      expect(again.statusCode).toBe(200);
      expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow()).telegram_chat_id).toBe(777201n);
      expect(bot.sent.filter((m) => m.chat_id === 777201).map((m) => m.text)).toEqual([expect.stringContaining('Готово')]);
    } finally {
      await sql.raw(`DROP TRIGGER chat_write_fails_once_${u.id} ON users; DROP FUNCTION chat_write_fails_once_${u.id}(); DROP SEQUENCE chat_write_${u.id};`).execute(t.db.kysely);
    }
  });

  it('the same /start update delivered again (Telegram lost the answer) says the chat is linked, not that the link is stale', async () => {
    const u = await createUser(t.db.kysely);
    const token = /start=([\w-]+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
    const update = { update_id: 424_242_001, message: { message_id: 7, date: 0, chat: { id: 777601, type: 'private' }, from: { id: 777601 }, text: `/start ${token}` } };
    const deliver = () => t.app.inject({ method: 'POST', url: '/api/telegram/webhook', headers: { 'x-telegram-bot-api-secret-token': secret }, payload: update });
    expect((await deliver()).statusCode).toBe(200);
    expect((await deliver()).statusCode).toBe(200);
    expect(bot.sent.filter((m) => m.chat_id === 777601).map((m) => m.text)).toEqual([
      expect.stringContaining('Готово'),
      'Этот чат уже подключён: уведомления о балансе приходят сюда. Отключить — команда /stop.',
    ]);
    expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow()).telegram_chat_id).toBe(777601n);
    // The spent link in another chat is still stale; after /stop the same one is stale here too.
    await webhook(`/start ${token}`, 777602);
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 777602, text: expect.stringMatching(/^Ссылка устарела/) });
    await webhook('/stop', 777601);
    await webhook(`/start ${token}`, 777601);
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 777601, text: expect.stringMatching(/^Ссылка устарела/) });
    await webhook('/stop', 777601);
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 777601, text: 'Этот чат не был подключён.' });
  });

  it("an operator's block stops a /start link made before it: the chat is not linked while the account is blocked", async () => {
    const admin = await createUser(t.db.kysely, { admin: true });
    const u = await createUser(t.db.kysely);
    const token = /start=([\w-]+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth })).json().url)![1]!;
    const block = await t.app.inject({ method: 'POST', url: `/api/admin/users/${u.id}/block`, headers: admin.auth, payload: { reason: 'Спор по заказу' } });
    expect(block.statusCode).toBe(200);
    expect((await webhook(`/start ${token}`, 777701)).statusCode).toBe(200);
    expect(bot.sent.at(-1)).toMatchObject({ chat_id: 777701, text: expect.stringMatching(/^Ссылка устарела или уже использована\./) });
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
    expect(notice.text).toContain('сейчас 7\u00a0000\u00a0000 аден');
  });

  it('ignores updates that are not messages and answers Telegram 200', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/telegram/webhook',
      headers: { 'x-telegram-bot-api-secret-token': secret },
      payload: { update_id: 1, edited_message: {} },
    });
    expect(res.statusCode).toBe(200);
    const wrongHeader = await t.app.inject({
      method: 'POST',
      url: '/api/telegram/webhook',
      headers: { 'x-telegram-bot-api-secret-token': 'wrong' },
      payload: { update_id: 2 },
    });
    expect(wrongHeader.statusCode).toBe(404);
    // Without the secret, the body is not read: broken or oversized, the endpoint still does not show itself.
    for (const payload of ['{', 'x'.repeat(300 * 1024)]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/telegram/webhook', headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: 'Не найдено' });
    }
  });
});

describe.each(DB_KINDS)('the webhook registration when Telegram is unreachable at start, on %s', (kind) => {
  it('is tried again by the job queue until Telegram answers, once for the start', async () => {
    const bot = await startFakeBotApi();
    bot.webhookDownFor(2);
    const t = await createTestApp(kind, {
      env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url, PUBLIC_URL: 'https://wallet.example/' },
    });
    try {
      await t.app.deps.jobs.start();
      const hook = await waitFor(() => bot.webhooks[0], 'setWebhook after two refusals');
      expect(hook).toMatchObject({ url: 'https://wallet.example/api/telegram/webhook', secret_token: webhookSecretOf(BOT_TOKEN) });
      expect(bot.webhookCalls).toEqual([502, 502, 200]);
      // Registered: nothing is left to try again.
      await waitFor(async () => {
        const left = await t.db.kysely.selectFrom('jobs').select('id').where('kind', '=', SET_WEBHOOK_JOB).execute();
        return left.length === 0 ? true : undefined;
      }, 'the registration job to finish');
      expect(bot.webhookCalls).toEqual([502, 502, 200]);
    } finally {
      await t.close();
      await bot.close();
    }
  });
});

describe.each(DB_KINDS)('the webhook registration during a deploy that changes its settings, on %s', (kind) => {
  const NEW_TOKEN = '654321:TEST-the_new-bot-token';
  const OLD_URL = 'https://wallet.example/';
  const envOf = (apiUrl: string, token: string, publicUrl: string) => ({
    TELEGRAM_BOT_TOKEN: token,
    TELEGRAM_BOT_USERNAME: 'adena_test_bot',
    TELEGRAM_API_URL: apiUrl,
    PUBLIC_URL: publicUrl,
  });
  const registered = (bot: Awaited<ReturnType<typeof startFakeBotApi>>) => bot.webhooks.map(({ token, url, secret_token }) => ({ token, url, secret_token }));
  const hookOf = (token: string, publicUrl: string) => ({ token, url: `${publicUrl}api/telegram/webhook`, secret_token: webhookSecretOf(token) });
  const registrations = (t: TestApp) => t.db.kysely.selectFrom('jobs').select(['state', 'key', 'payload', 'last_error']).where('kind', '=', SET_WEBHOOK_JOB).execute();

  it.each([
    ['TELEGRAM_BOT_TOKEN', NEW_TOKEN, OLD_URL],
    ['PUBLIC_URL', BOT_TOKEN, 'https://new.wallet.example/'],
  ])('a new %s: an old process that claims the new registration hands it back, and the new process registers its own', async (_, token, publicUrl) => {
    const bot = await startFakeBotApi();
    // The worker is not started: each process runs its due jobs with runDue().
    const old = await createTestApp(kind, { env: envOf(bot.url, BOT_TOKEN, OLD_URL) });
    try {
      await old.app.deps.jobs.runDue();
      expect(registered(bot)).toEqual([hookOf(BOT_TOKEN, OLD_URL)]);

      // The deploy's first new process starts: it queues the registration of its settings.
      const fresh = await createTestApp(kind, { db: old.db, seed: false, env: envOf(bot.url, token, publicUrl) });
      try {
        // An old process's worker finds it due first: it registers nothing, its own settings least of all.
        await old.app.deps.jobs.runDue();
        expect(bot.webhookCalls).toEqual([200]);
        expect(registered(bot)).toEqual([hookOf(BOT_TOKEN, OLD_URL)]);
        const [job] = await registrations(old);
        expect(job).toMatchObject({
          state: 'pending',
          last_error: expect.stringContaining('left to a process'),
          payload: { url: `${publicUrl}api/telegram/webhook`, bot: expect.stringMatching(/^[0-9a-f]{32}$/) },
        });
        // The row names the token by a fingerprint only: neither the token nor the webhook's secret is in the jobs table.
        expect(JSON.stringify(job)).not.toContain(token.split(':')[1]!);
        expect(JSON.stringify(job)).not.toContain(webhookSecretOf(token));

        // Its turn comes again (the time moved instead of the test waiting): the new process registers its settings.
        await sql`UPDATE jobs SET run_at = now() - interval '1 second' WHERE kind = ${SET_WEBHOOK_JOB}`.execute(old.db.kysely);
        await fresh.app.deps.jobs.runDue();
        expect(registered(bot)).toEqual([hookOf(BOT_TOKEN, OLD_URL), hookOf(token, publicUrl)]);
        expect(await registrations(old)).toEqual([]);
      } finally {
        await fresh.close();
      }
    } finally {
      await old.close();
      await bot.close();
    }
  });

  it('a registration whose settings no process has any more (the deploy rolled back) ends with its age, and the old process never registers over it', async () => {
    const bot = await startFakeBotApi();
    const old = await createTestApp(kind, { env: envOf(bot.url, BOT_TOKEN, OLD_URL) });
    try {
      await old.app.deps.jobs.runDue();
      const fresh = await createTestApp(kind, { db: old.db, seed: false, env: envOf(bot.url, NEW_TOKEN, OLD_URL) });
      await fresh.close();
      for (let i = 0; i < 3; i++) {
        await sql`UPDATE jobs SET run_at = now() - interval '1 second' WHERE kind = ${SET_WEBHOOK_JOB} AND state = 'pending'`.execute(old.db.kysely);
        await old.app.deps.jobs.runDue();
      }
      expect(await registrations(old)).toEqual([expect.objectContaining({ state: 'pending' })]);
      // A day later it is over: failed, not registered by anyone.
      await sql`UPDATE jobs SET run_at = now() - interval '1 second', give_up_at = now() WHERE kind = ${SET_WEBHOOK_JOB}`.execute(old.db.kysely);
      await old.app.deps.jobs.runDue();
      expect(await registrations(old)).toEqual([expect.objectContaining({ state: 'failed', payload: expect.objectContaining({ url: `${OLD_URL}api/telegram/webhook` }) })]);
      expect(bot.webhookCalls).toEqual([200]);
      expect(registered(bot)).toEqual([hookOf(BOT_TOKEN, OLD_URL)]);
    } finally {
      await old.close();
      await bot.close();
    }
  });
});

describe.each(DB_KINDS)("Telegram's deliveries and the per-address call limit, on %s", (kind) => {
  it('a busy bot is never refused from the few addresses Telegram delivers from; a caller without the secret is counted', async () => {
    const bot = await startFakeBotApi();
    // 1% of the normal limits: 6 calls a minute per address.
    const t = await createTestApp(kind, {
      env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url, RATE_LIMIT_SCALE: '0.01' },
    });
    try {
      const telegram = '149.154.167.220';
      const deliver = (text: string, chatId: number, remoteAddress = telegram, secret: string | null = webhookSecretOf(BOT_TOKEN)) =>
        t.app.inject({
          method: 'POST',
          url: '/api/telegram/webhook',
          remoteAddress,
          headers: secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret },
          payload: { update_id: 1, message: { message_id: 1, date: 0, chat: { id: chatId, type: 'private' }, from: { id: chatId }, text } },
        });
      // Other chats' updates first, more than the address may make calls in a minute…
      for (let i = 0; i < 10; i++) expect((await deliver('привет', 778000 + i)).statusCode).toBe(200);
      // …then a player's /start link from the same address still links their chat.
      const u = await createUser(t.db.kysely);
      const token = /start=([\w-]+)$/.exec((await t.app.inject({ method: 'GET', url: '/api/telegram_link', headers: u.auth, remoteAddress: '192.0.2.5' })).json().url)![1]!;
      expect((await deliver(`/start ${token}`, 778100)).statusCode).toBe(200);
      const row = await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', u.id).executeTakeFirstOrThrow();
      expect(row.telegram_chat_id).toBe(778100n);

      // Without the secret (or with another) the path is an ordinary call of the address: counted, then 429.
      const codes: number[] = [];
      for (let i = 0; i < 7; i++) codes.push((await deliver('привет', 778200, '192.0.2.66', i % 2 ? null : 'not-the-secret')).statusCode);
      expect(codes).toEqual([404, 404, 404, 404, 404, 404, 429]);
    } finally {
      await t.close();
      await bot.close();
    }
  });
});
