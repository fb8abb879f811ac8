import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { closeServer, listen } from '../../../test/fakes/http';
import { startFakeBotApi } from '../../../test/fakes/telegram-bot-api';
import { createTestApp, createTestDb, DB_KINDS, type TestApp, type TestDb } from '../../../test/harness';
import { webhookSecretOf } from '../notifications/telegram-bot';
import { botFingerprintOf, SET_WEBHOOK_JOB, TELEGRAM_WEBHOOK_PATH } from '../notifications/telegram-webhook.routes';

const BOT_TOKEN = '123456:TEST-token_for-local-bot';
const PUBLIC_URL = 'https://wallet.example';
const OUTWARD = 'test.outward';

const jobRows = (db: TestDb) =>
  db.kysely.selectFrom('jobs').select(['id', 'kind', 'state', 'attempts', 'claim', 'run_at', 'last_error']).orderBy('id').execute();

/** A job kind that calls out, as a seller's webhook does: it POSTs to the payload's URL. */
function registerOutward(t: TestApp) {
  t.app.deps.jobs.register<{ url: string }>(OUTWARD, async (p) => {
    await fetch(p.url, { method: 'POST' });
  });
}

// A restore drill's server runs on a copy of production's database, its queue included.
describe.each(DB_KINDS)('JOBS=off on %s', (kind) => {
  it('runs no job and queues nothing at start: due jobs stay as they were and no outside service hears from it', async () => {
    const bot = await startFakeBotApi();
    const heard: string[] = [];
    const receiver = createServer((req, res) => {
      heard.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    const receiverUrl = await listen(receiver);
    const db = await createTestDb(kind);
    const env = { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url, PUBLIC_URL };
    try {
      const off = await createTestApp(kind, { db, env: { ...env, JOBS: 'off' } });
      try {
        registerOutward(off);
        // The copy's queue: a registration of the bot's webhook (production's URL and token) and an outward job, both due.
        const setWebhook = { url: `${PUBLIC_URL}${TELEGRAM_WEBHOOK_PATH}`, bot: botFingerprintOf(webhookSecretOf(BOT_TOKEN)) };
        await off.app.deps.jobs.enqueue(db.kysely, SET_WEBHOOK_JOB, setWebhook);
        await off.app.deps.jobs.enqueue(db.kysely, OUTWARD, { url: `${receiverUrl}/hook` });
        const before = await jobRows(db);
        // Nothing else was queued when the app was built (the bot's webhook registration is queued at start).
        expect(before.map((j) => j.kind)).toEqual([SET_WEBHOOK_JOB, OUTWARD]);
        await off.app.listen({ port: 0, host: '127.0.0.1' });
        // Well past the worker's first claim (at start) and its 1 s poll.
        await new Promise((r) => setTimeout(r, 1_500));
        // Untouched: not claimed, not tried, not removed; no recurring job scheduled.
        expect(await jobRows(db)).toEqual(before);
        expect(before.every((j) => j.state === 'pending' && j.attempts === 0 && j.claim === null)).toBe(true);
        expect(bot.webhookCalls).toEqual([]);
        expect(bot.attempts).toEqual([]);
        expect(heard).toEqual([]);
      } finally {
        await off.close();
      }

      // The same database and services with the jobs on (the default): both jobs run, so the fakes above would have heard.
      const on = await createTestApp(kind, { db, env, seed: false });
      try {
        registerOutward(on);
        await on.app.listen({ port: 0, host: '127.0.0.1' });
        await expect.poll(() => heard).toEqual(['POST /hook']);
        await expect.poll(() => bot.webhookCalls.length).toBeGreaterThan(0);
      } finally {
        await on.close();
      }
    } finally {
      await db.close();
      await bot.close();
      await closeServer(receiver);
    }
    // A database and two app starts in one test: past the default 30 s on a loaded machine (flakiness audit 2).
  }, 120_000);
});
