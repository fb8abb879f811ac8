import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../../test/factories';
import { startFakeBotApi } from '../../../test/fakes/telegram-bot-api';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { hashPassword } from '../../lib/password';
import { hashToken, newToken } from '../../lib/tokens';
import { webhookSecretOf } from './telegram-bot';
import { telegramSubscriptionsRepository } from './telegram-subscriptions.repository';

const BOT_TOKEN = '123456:TEST-token_for-local-bot';
const PASSWORD = 'correct horse 1';

/**
 * A Telegram link token belongs to the session that asked for it (migration 0046): a thief who took the
 * link from a stolen session cannot tie his chat to the owner's notices after the owner ended that session.
 */
describe.each(DB_KINDS)('a Telegram link dies with the session that asked for it on %s', (kind) => {
  let t: TestApp;
  let bot: Awaited<ReturnType<typeof startFakeBotApi>>;
  let chatSeq = 920_000;
  const secret = webhookSecretOf(BOT_TOKEN);

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  /** `/start <token>` from a chat, through the bot's webhook; the bot's answer to that chat. */
  const start = async (token: string, chatId: number) => {
    const before = bot.sent.filter((m) => m.chat_id === chatId).length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/telegram/webhook',
      headers: { 'x-telegram-bot-api-secret-token': secret },
      payload: { update_id: chatId, message: { message_id: 1, date: 0, chat: { id: chatId, type: 'private' }, from: { id: chatId }, text: `/start ${token}` } },
    });
    expect(res.statusCode).toBe(200);
    const answers = bot.sent.filter((m) => m.chat_id === chatId);
    expect(answers).toHaveLength(before + 1);
    return answers.at(-1)!.text;
  };
  const linkToken = async (sessionToken: string) => {
    const res = await call('GET', '/api/telegram_link', sessionToken);
    expect(res.statusCode).toBe(200);
    return /start=([\w-]+)$/.exec(res.json().url as string)![1]!;
  };
  const chatOf = async (userId: number) =>
    (await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', userId).executeTakeFirstOrThrow()).telegram_chat_id;

  /** An owner with a password and a session (the factory's), and a second session of theirs: the thief's. */
  async function ownerAndThief() {
    const owner = await createUser(t.db.kysely);
    await t.db.kysely.updateTable('users').set({ password_hash: await hashPassword(PASSWORD) }).where('id', '=', owner.id).execute();
    const thief = newToken();
    const row = await t.db.kysely
      .insertInto('tokens')
      .values({ user_id: owner.id, kind: 'access', token_hash: hashToken(thief), method: 'email' })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { owner, ownerToken: owner.token, thief, thiefSessionId: row.id };
  }

  beforeAll(async () => {
    bot = await startFakeBotApi();
    // No job queue worker: the bot's answers to /start go out directly.
    t = await createTestApp(kind, { env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url } });
  });
  afterAll(async () => {
    await t.close();
    await bot.close();
  });

  const ends: Array<[string, (w: Awaited<ReturnType<typeof ownerAndThief>>) => Promise<string>]> = [
    [
      'the owner ends the other sessions',
      async (w) => {
        expect((await call('POST', '/api/sessions/end_others', w.ownerToken, {})).json()).toEqual({ ended: 1 });
        return w.ownerToken;
      },
    ],
    [
      "the owner ends the thief's session by its id",
      async (w) => {
        expect((await call('DELETE', `/api/sessions/${w.thiefSessionId}`, w.ownerToken)).statusCode).toBe(200);
        return w.ownerToken;
      },
    ],
    [
      'the owner changes the password',
      async (w) => {
        const res = await call('POST', '/api/change_password', w.ownerToken, { password: PASSWORD, new_password: 'new secret 42', new_password_confirmation: 'new secret 42' });
        expect(res.statusCode).toBe(200);
        return res.json().access_token as string;
      },
    ],
    [
      'the session logs out',
      async (w) => {
        expect((await call('GET', '/api/logout', w.thief)).statusCode).toBe(200);
        return w.ownerToken;
      },
    ],
  ];

  it.each(ends)("when %s, the link that session asked for links no chat; the owner's own link still works", async (_what, end) => {
    const w = await ownerAndThief();
    const unknownAnswer = await start(newToken(), ++chatSeq);
    expect(unknownAnswer).toContain('Ссылка устарела');
    const stolen = await linkToken(w.thief);
    const ownersEarlier = await linkToken(w.ownerToken);

    const ownerNow = await end(w);
    expect((await call('GET', '/api/user', w.thief)).statusCode).toBe(401);
    const thiefChat = ++chatSeq;
    expect(await start(stolen, thiefChat)).toBe(unknownAnswer);
    expect(await chatOf(w.owner.id)).toBeNull();
    expect(await t.db.kysely.selectFrom('users').select('id').where('telegram_chat_id', '=', BigInt(thiefChat)).execute()).toEqual([]);

    // A link of the session that lives on links the owner's chat: one asked for before the end, or a new one.
    const ownerChat = ++chatSeq;
    expect(await start(ownersEarlier, ownerChat)).toContain('Готово');
    expect(await chatOf(w.owner.id)).toBe(BigInt(ownerChat));
    const fresh = await linkToken(ownerNow);
    const ownerNext = ++chatSeq;
    expect(await start(fresh, ownerNext)).toContain('Готово');
    expect(await chatOf(w.owner.id)).toBe(BigInt(ownerNext));
  });

  it('a /start delivered again after its session ended says the chat is still linked, not only that the link is stale', async () => {
    const w = await ownerAndThief();
    const chat = ++chatSeq;
    const link = await linkToken(w.thief);
    expect(await start(link, chat)).toContain('Готово');
    expect((await call('GET', '/api/logout', w.thief)).statusCode).toBe(200);
    // Telegram delivers the same update again (it never got the webhook's answer), or the player taps the link again.
    expect(await start(link, chat)).toMatch(/^Ссылка устарела или уже использована, но этот чат подключён: уведомления о балансе приходят сюда\./);
    expect(await chatOf(w.owner.id)).toBe(BigInt(chat));
    // A chat linked to nobody keeps the plain answer.
    expect(await start(link, ++chatSeq)).toMatch(/^Ссылка устарела или уже использована\. Откройте на сайте/);
  });

  // Stress round 6: a /start holds the user's row and the link it used, then deletes the user's other links; a logout
  // deleted its session first, whose cascade took that session's older link and then waited for the used one.
  it.runIf(kind === 'postgres')('a /start of a session that logs out meanwhile: no deadlock, both answered', async () => {
    const w = await ownerAndThief();
    const otherLink = await linkToken(w.ownerToken);
    const older = await linkToken(w.thief);
    const used = await linkToken(w.thief);
    expect(older).not.toBe(used);
    // /start has marked its link used and waits at the owner's other session's link, before the thief's older one.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('telegram_link_tokens').select('user_id').where('token_hash', '=', hashToken(otherLink)).forUpdate().execute());
    const chat = ++chatSeq;
    const started = start(used, chat);
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%telegram_link_tokens%')) === 1 ? true : undefined), '/start to wait at the links');
    const loggedOut = call('GET', '/api/logout', w.thief);
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the logout to wait as well');
    await hold.release();
    const [answer, logout] = await Promise.all([started, loggedOut]);
    expect(logout.statusCode).toBe(200);
    expect(answer).toContain('Готово');
    expect(await chatOf(w.owner.id)).toBe(BigInt(chat));
    expect((await call('GET', '/api/user', w.thief)).statusCode).toBe(401);
  });

  it('a link of a live second session still links its chat', async () => {
    const w = await ownerAndThief();
    const chat = ++chatSeq;
    expect(await start(await linkToken(w.thief), chat)).toContain('Готово');
    expect(await chatOf(w.owner.id)).toBe(BigInt(chat));
  });

  it('a link asked for by a session that ended meanwhile is not written (the call answers 401, not a foreign-key 500)', async () => {
    const w = await ownerAndThief();
    await t.db.kysely.deleteFrom('tokens').where('id', '=', w.thiefSessionId).execute();
    const expires = new Date(Date.now() + 3600_000);
    expect(await telegramSubscriptionsRepository.insertLinkToken(t.db.kysely, w.owner.id, w.thiefSessionId, hashToken(newToken()), expires)).toBe(false);
    // Nor under another user's session id.
    const other = await createUser(t.db.kysely);
    const otherSession = await t.db.kysely.selectFrom('tokens').select('id').where('user_id', '=', other.id).executeTakeFirstOrThrow();
    expect(await telegramSubscriptionsRepository.insertLinkToken(t.db.kysely, w.owner.id, otherSession.id, hashToken(newToken()), expires)).toBe(false);
    expect(await t.db.kysely.selectFrom('telegram_link_tokens').select('token_hash').where('user_id', '=', w.owner.id).execute()).toEqual([]);
  });

  it('a session past its idle end, not yet swept, links no chat with its link', async () => {
    const w = await ownerAndThief();
    const unknownAnswer = await start(newToken(), ++chatSeq);
    const link = await linkToken(w.thief);
    await t.db.kysely
      .updateTable('tokens')
      .set({ idle_seconds: 24 * 3600, last_seen_at: new Date(Date.now() - 25 * 3600_000) })
      .where('id', '=', w.thiefSessionId)
      .execute();
    expect(await start(link, ++chatSeq)).toBe(unknownAnswer);
    expect(await chatOf(w.owner.id)).toBeNull();
  });
});
