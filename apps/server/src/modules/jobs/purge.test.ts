import { SELLER_IDEMPOTENCY_DAYS } from '@adena/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, DB_KINDS, type TestDb } from '../../../test/harness';
import { createUser, createWallet, firstServerId } from '../../../test/factories';
import { seedDemoServers } from '../system/seed';
import { hashToken, newToken } from '../../lib/tokens';
import { createJobs } from './jobs.service';
import { purgeRepository } from './purge.repository';
import { createPurge, PURGE_KIND, schedulePurge } from './purge.service';

const NOW = new Date('2026-03-01T12:00:00Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const HOUR = 60;
const DAY = 24 * HOUR;

describe.each(DB_KINDS)('purge of expired rows on %s', (kind) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb(kind);
  });
  afterAll(() => db.close());

  it('removes exactly the expired rows, through the recurring job', async () => {
    const k = db.kysely;
    const user = await createUser(k);
    const token = (kind: 'access' | 'realtime' | 'new_password', expires: Date | null) =>
      k.insertInto('tokens').values({ user_id: user.id, kind, token_hash: hashToken(newToken()), expires_at: expires }).returning('id').executeTakeFirstOrThrow();
    const live = [await token('access', null), await token('access', at(1)), await token('realtime', at(5))];
    // An ended session is the sessions sweep's: it tells the session's sockets as it deletes it.
    live.push(await token('access', at(-1)));
    for (const [kind, expires] of [['realtime', at(-10)], ['new_password', at(-DAY)]] as const) await token(kind, expires);

    const flow = (expires: Date) =>
      k
        .insertInto('auth_flows')
        .values({ token_hash: hashToken(newToken()), purpose: 'register', channel: 'email', address: 'a@example.com', expires_at: expires, last_sent_at: at(-20) })
        .returning('id')
        .executeTakeFirstOrThrow();
    const liveFlow = await flow(at(3));
    await flow(at(-1));
    await flow(at(-2 * HOUR));

    const state = (expires: Date) =>
      k.insertInto('oauth_states').values({ state_hash: hashToken(newToken()), provider: 'discord', code_verifier: 'v', redirect_uri: 'http://x/', expires_at: expires }).execute();
    await state(at(5));
    await state(at(-5));

    const link = (expires: Date) => k.insertInto('telegram_link_tokens').values({ token_hash: hashToken(newToken()), user_id: user.id, expires_at: expires }).execute();
    await link(at(5));
    await link(at(-5));

    const idem = (key: string, created: Date, path = '/api/x') =>
      k.insertInto('idempotency_keys').values({ user_id: user.id, key, method: 'POST', path, request_hash: 'h', created_at: created }).execute();
    await idem('fresh', at(-HOUR));
    await idem('almost', at(-DAY + 1));
    await idem('old', at(-DAY - 1));
    // A seller's order keys: kept SELLER_IDEMPOTENCY_DAYS, so a late redelivery of the order replays its codes.
    await idem('order-week', at(-7 * DAY), '/api/v1/codes');
    await idem('order-almost', at(-SELLER_IDEMPOTENCY_DAYS * DAY + 1), '/api/v1/codes');
    await idem('order-old', at(-SELLER_IDEMPOTENCY_DAYS * DAY - 1), '/api/v1/codes');

    // A browser signed in from within the cookie's 400 days is remembered; one older is forgotten.
    await k.insertInto('known_browsers').values({ user_id: user.id, browser_hash: 'a'.repeat(64), last_seen_at: at(-399 * DAY) }).execute();
    await k.insertInto('known_browsers').values({ user_id: user.id, browser_hash: 'b'.repeat(64), last_seen_at: at(-401 * DAY) }).execute();

    await k.insertInto('rate_limits').values({ key: 'recent', hits: 1, window_start: at(-HOUR) }).execute();
    await k.insertInto('rate_limits').values({ key: 'stale', hits: 1, window_start: at(-2 * DAY) }).execute();

    const jobs = createJobs({ db: k, dbNow: () => NOW });
    schedulePurge(jobs, createPurge({ db: k, dbNow: () => NOW }));
    await jobs.start();
    await jobs.stop();
    await jobs.runDue();

    const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
    const tokens = await k.selectFrom('tokens').select('id').where('user_id', '=', user.id).execute();
    // createUser's own session (no expiry) stays too.
    expect(ids(tokens)).toEqual(expect.arrayContaining(ids(live)));
    expect(tokens).toHaveLength(live.length + 1);
    expect(ids(await k.selectFrom('auth_flows').select('id').execute())).toEqual([liveFlow.id]);
    expect(await k.selectFrom('oauth_states').select('expires_at').execute()).toEqual([{ expires_at: at(5) }]);
    expect(await k.selectFrom('telegram_link_tokens').select('expires_at').execute()).toEqual([{ expires_at: at(5) }]);
    expect((await k.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key)).toEqual(['almost', 'fresh', 'order-almost', 'order-week']);
    expect((await k.selectFrom('rate_limits').select('key').execute()).map((r) => r.key)).toEqual(['recent']);
    expect((await k.selectFrom('known_browsers').select('browser_hash').execute()).map((r) => r.browser_hash)).toEqual(['a'.repeat(64)]);

    // The next purge is already scheduled, ten minutes on.
    const next = await k.selectFrom('jobs').selectAll().execute();
    expect(next).toHaveLength(1);
    expect(next[0]).toMatchObject({ kind: PURGE_KIND, state: 'pending', run_at: at(10) });
  });

  it('removes failed jobs a month old and keeps newer ones', async () => {
    const k = db.kysely;
    await k.deleteFrom('jobs').execute();
    const failed = (failedAt: Date) =>
      k
        .insertInto('jobs')
        .values({ kind: 'x', payload: '{}', state: 'failed', run_at: failedAt, max_attempts: 1, give_up_at: failedAt, created_at: failedAt, failed_at: failedAt })
        .execute();
    await failed(at(-31 * DAY));
    await failed(at(-29 * DAY));
    const counts = await createPurge({ db: k, dbNow: () => NOW }).run();
    expect(counts.failedJobs).toBe(1);
    expect(await k.selectFrom('jobs').select('failed_at').execute()).toEqual([{ failed_at: at(-29 * DAY) }]);
  });

  it('removes old log rows but keeps what is still pending and the tries of real codes', async () => {
    const k = db.kysely;
    const user = await createUser(k);
    if (!(await k.selectFrom('gamesservers').select('id').executeTakeFirst())) await seedDemoServers(k);
    const serverId = await firstServerId(k);
    const wallet = await createWallet(k, user.id, serverId);
    const code = await k
      .insertInto('codes')
      .values({ sert: `PURGE-${user.id}`, user_id: user.id, wallet_id: wallet.id, gamesserver_id: serverId, nominal: 1000n, fee: 0n, price: 1000n })
      .returning('id')
      .executeTakeFirstOrThrow();
    const attempt = (codeId: number | null, created: Date) =>
      k.insertInto('code_attempts').values({ code_id: codeId, user_id: user.id, ip: '10.0.0.1', result: codeId ? 'already_activated' : 'not_found', created_at: created }).execute();
    await attempt(null, at(-31 * DAY)); // an old guess: gone
    await attempt(null, at(-29 * DAY));
    await attempt(code.id, at(-400 * DAY)); // a real code's try: the operators' evidence, kept
    const notice = (status: 'pending' | 'sent' | 'no_chat', created: Date) =>
      k
        .insertInto('telegram_notices')
        .values({ user_id: user.id, wallet_id: wallet.id, gamesserver_id: serverId, threshold: 10n, balance: 1n, text: 't', status, created_at: created })
        .execute();
    await notice('sent', at(-31 * DAY));
    await notice('no_chat', at(-31 * DAY));
    await notice('sent', at(-29 * DAY));
    await notice('pending', at(-31 * DAY)); // still to be sent
    const delivery = (status: 'pending' | 'delivered' | 'failed', created: Date) =>
      k.insertInto('webhook_deliveries').values({ user_id: user.id, type: 'ping', body: '{}', status, created_at: created }).execute();
    await delivery('delivered', at(-31 * DAY));
    await delivery('failed', at(-31 * DAY));
    await delivery('delivered', at(-29 * DAY));
    await delivery('pending', at(-2 * DAY)); // still being retried
    const call = (created: Date) =>
      k.insertInto('api_key_calls').values({ api_key_id: 1, user_id: user.id, method: 'GET', path: '/api/v1/balance', status_code: 200, created_at: created }).execute();
    await call(at(-91 * DAY));
    await call(at(-89 * DAY));

    const counts = await createPurge({ db: k, dbNow: () => NOW }).run();
    expect(counts.logs).toBe(6);
    const left = async (table: 'code_attempts' | 'telegram_notices' | 'webhook_deliveries' | 'api_key_calls', extra: 'code_id' | 'status' | 'path') =>
      (await k.selectFrom(table).select(['created_at', extra]).where('user_id', '=', user.id).orderBy('id').execute()).map((r) => [
        (r as { created_at: Date }).created_at,
        (r as Record<string, unknown>)[extra],
      ]);
    expect(await left('code_attempts', 'code_id')).toEqual([
      [at(-29 * DAY), null],
      [at(-400 * DAY), code.id],
    ]);
    expect(await left('telegram_notices', 'status')).toEqual([
      [at(-29 * DAY), 'sent'],
      [at(-31 * DAY), 'pending'],
    ]);
    expect(await left('webhook_deliveries', 'status')).toEqual([
      [at(-29 * DAY), 'delivered'],
      [at(-2 * DAY), 'pending'],
    ]);
    expect(await left('api_key_calls', 'path')).toEqual([[at(-89 * DAY), '/api/v1/balance']]);

    // A log that grew for months goes in batches (here two rows a statement), all of it.
    for (let i = 0; i < 5; i++) await attempt(null, at(-(40 + i) * DAY));
    expect(await purgeRepository.oldLogs(k, NOW, 2)).toBe(5);
    expect((await left('code_attempts', 'code_id')).map(([created]) => created)).toEqual([at(-29 * DAY), at(-400 * DAY)]);
  });

  it('marks failed a webhook delivery left pending a day past its three days, whose job is gone', async () => {
    const k = db.kysely;
    const user = await createUser(k);
    const delivery = (status: 'pending' | 'delivered', created: Date) =>
      k.insertInto('webhook_deliveries').values({ user_id: user.id, type: 'ping', body: '{}', status, created_at: created, next_attempt_at: created }).returning('id').executeTakeFirstOrThrow();
    const retried = await delivery('pending', at(-(3 * DAY + 23 * HOUR)));
    const lost = await delivery('pending', at(-(4 * DAY + HOUR)));
    const delivered = await delivery('delivered', at(-5 * DAY));

    const counts = await createPurge({ db: k, dbNow: () => NOW }).run();
    expect(counts.abandonedDeliveries).toBe(1);
    const rows = await k.selectFrom('webhook_deliveries').select(['id', 'status', 'last_error', 'next_attempt_at']).where('user_id', '=', user.id).orderBy('id').execute();
    expect(rows).toEqual([
      { id: retried.id, status: 'pending', last_error: null, next_attempt_at: at(-(3 * DAY + 23 * HOUR)) },
      { id: lost.id, status: 'failed', last_error: 'expired', next_attempt_at: null },
      { id: delivered.id, status: 'delivered', last_error: null, next_attempt_at: at(-5 * DAY) },
    ]);
  });
});
