import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { startFakeBotApi, waitFor } from '../../../test/fakes/telegram-bot-api';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { ALERT_SCAN_KIND, ALERT_SEND_KIND } from './shift.service';

type User = Awaited<ReturnType<typeof createUser>>;

/**
 * Operators' Telegram alerts and claims: no alert tells operators to take a request another operator holds
 * (CLAIM_TIMEOUT_MIN 15, the default). The worker is not started: each test runs the scan and the sends with
 * runDue(), on the app's and the queue's clock, which the tests move.
 */
describe.each(DB_KINDS)('operator alerts skip requests an operator holds on %s', (kind) => {
  let t: TestApp;
  let bot: Awaited<ReturnType<typeof startFakeBotApi>>;
  let serverId: number;
  let anna: User;
  let boris: User;
  const chats = { anna: 8101, boris: 8102 };
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  let nickSeq = 0;

  const call = (url: string, who: User, payload: object = {}) => t.app.inject({ method: 'POST', url, headers: who.auth, payload });
  const claim = async (id: number, who: User) => expect((await call(`/api/admin/requests/${id}/claim`, who)).statusCode).toBe(200);
  const release = async (id: number, who: User) => expect((await call(`/api/admin/requests/${id}/release`, who)).statusCode).toBe(200);
  const vipTexts = (id: number) => bot.sent.filter((m) => m.text.startsWith(`VIP-заявка №${id}:`));
  const overdueTexts = (id: number) => bot.sent.filter((m) => m.text.startsWith(`Заявка №${id} ждёт`));
  const sendJobs = () => t.db.kysely.selectFrom('jobs').select(['state', 'last_error', 'payload']).where('kind', '=', ALERT_SEND_KIND).execute();

  /** A player with a wallet; VIP when asked. */
  async function player(vip: boolean) {
    const p = await createUser(t.db.kysely);
    if (vip) await makeVip(p.id);
    await createWallet(t.db.kysely, p.id, serverId, `Hero${++nickSeq}`);
    return p;
  }
  const makeVip = (userId: number) =>
    t.db.kysely.updateTable('users').set({ vip_until: new Date(now().getTime() + 30 * 86_400_000) }).where('id', '=', userId).execute();
  async function deposit(p: User) {
    const res = await call('/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 2_000_000 });
    expect(res.statusCode).toBe(200);
    return res.json().success.id as number;
  }
  /** A VIP player's deposit; its alerts are queued after the COMMIT, not before the answer: waits for both. */
  async function vipDeposit(p: User) {
    const id = await deposit(p);
    await waitFor(async () => {
      const jobs = await t.db.kysely.selectFrom('jobs').select('payload').where('kind', '=', ALERT_SEND_KIND).execute();
      return jobs.filter((j) => (j.payload as { requestId?: number }).requestId === id).length === 2 ? true : undefined;
    }, 'both VIP alerts queued');
    return id;
  }
  /** The minute's scan, due now on the queue's clock, run with whatever sends it queues. */
  async function runScan() {
    const key = `every:${ALERT_SCAN_KIND}`;
    await t.app.deps.jobs.enqueue(t.db.kysely, ALERT_SCAN_KIND, {}, { key });
    await t.db.kysely.updateTable('jobs').set({ run_at: new Date(now().getTime() - 1000) }).where('key', '=', key).execute();
    await t.app.deps.jobs.runDue();
  }

  beforeAll(async () => {
    bot = await startFakeBotApi();
    t = await createTestApp(kind, { now, env: { TELEGRAM_BOT_TOKEN: '123:abc', TELEGRAM_BOT_USERNAME: 'adena_bot', TELEGRAM_API_URL: bot.url } });
    serverId = await firstServerId(t.db.kysely);
    anna = await createUser(t.db.kysely, { admin: true, name: 'Анна' });
    boris = await createUser(t.db.kysely, { admin: true, name: 'Борис' });
    await t.db.kysely.updateTable('users').set({ telegram_chat_id: chats.anna }).where('id', '=', anna.id).execute();
    await t.db.kysely.updateTable('users').set({ telegram_chat_id: chats.boris }).where('id', '=', boris.id).execute();
  });
  afterAll(async () => {
    await t.close();
    await bot.close();
  });
  // Each test starts with no alert owed for an earlier test's requests (the clock only moves on) and none queued.
  beforeEach(async () => {
    await t.db.kysely.updateTable('balance_requests').set({ overdue_alerted_at: new Date(), vip_alerted_at: new Date() }).where('status', '=', 'pending').execute();
    await t.db.kysely.deleteFrom('jobs').where('kind', '=', ALERT_SEND_KIND).execute();
  });

  it('a player who becomes VIP while an operator holds the request: no VIP alert; once the claim is released, one', async () => {
    const p = await player(false);
    const id = await deposit(p);
    await claim(id, anna);
    await makeVip(p.id);
    await runScan();
    expect(vipTexts(id)).toEqual([]);
    offsetMs += 2 * 60_000;
    await runScan();
    expect(vipTexts(id)).toEqual([]);

    await release(id, anna);
    await runScan();
    expect(vipTexts(id).map((m) => m.chat_id).sort()).toEqual([chats.anna, chats.boris]);
    await runScan();
    expect(vipTexts(id)).toHaveLength(2);
  });

  it('a player who becomes VIP while an operator holds the request: one VIP alert after the claim lapses, none before', async () => {
    const p = await player(false);
    const id = await deposit(p);
    await claim(id, boris);
    await makeVip(p.id);
    offsetMs += 14 * 60_000;
    await runScan();
    expect(vipTexts(id)).toEqual([]);
    offsetMs += 2 * 60_000; // 16 minutes: the claim no longer stands
    await runScan();
    expect(vipTexts(id).map((m) => m.chat_id).sort()).toEqual([chats.anna, chats.boris]);
    await runScan();
    expect(vipTexts(id)).toHaveLength(2);
  });

  it('a VIP alert that waited out a 429 is not sent once another operator holds the request; one not held is sent', async () => {
    for (const held of [true, false]) {
      await t.db.kysely.deleteFrom('jobs').where('kind', '=', ALERT_SEND_KIND).execute();
      const p = await player(true);
      bot.rateLimitOnce(40);
      // The deposit queues the VIP alert to each operator; the first send meets Telegram's 429.
      const id = await vipDeposit(p);
      await t.app.deps.jobs.runDue();
      expect(vipTexts(id)).toHaveLength(1);
      const waiting = (await sendJobs()).filter((j) => j.state === 'pending');
      expect(waiting).toHaveLength(1);
      expect(waiting[0]!.last_error).toContain('429');
      if (held) await claim(id, boris);
      offsetMs += 41_000;
      await t.app.deps.jobs.runDue();
      expect(vipTexts(id)).toHaveLength(held ? 1 : 2);
      expect((await sendJobs()).filter((j) => j.state === 'pending')).toEqual([]);
    }
  });

  it('an overdue alert that waited out a 429 is not sent once another operator holds the request; one not held is sent', async () => {
    for (const held of [true, false]) {
      await t.db.kysely.updateTable('balance_requests').set({ overdue_alerted_at: new Date() }).where('status', '=', 'pending').execute();
      await t.db.kysely.deleteFrom('jobs').where('kind', '=', ALERT_SEND_KIND).execute();
      const p = await player(false);
      const id = await deposit(p);
      offsetMs += 11 * 60_000;
      bot.rateLimitOnce(40);
      await runScan();
      expect(overdueTexts(id)).toHaveLength(1);
      expect((await sendJobs()).filter((j) => j.state === 'pending')).toHaveLength(1);
      if (held) await claim(id, anna);
      offsetMs += 41_000;
      await t.app.deps.jobs.runDue();
      expect(overdueTexts(id)).toHaveLength(held ? 1 : 2);
      expect((await sendJobs()).filter((j) => j.state === 'pending')).toEqual([]);
    }
  });

  it('an alert retried after its claim lapsed is sent: a lapsed claim no longer holds the request', async () => {
    const p = await player(true);
    bot.rateLimitOnce(16 * 60);
    const id = await vipDeposit(p);
    await t.app.deps.jobs.runDue();
    expect(vipTexts(id)).toHaveLength(1);
    await claim(id, boris);
    offsetMs += 16 * 60_000 + 1000;
    await t.app.deps.jobs.runDue();
    expect(vipTexts(id)).toHaveLength(2);
  });
});
