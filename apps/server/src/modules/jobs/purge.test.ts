import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, DB_KINDS, type TestDb } from '../../../test/harness';
import { createUser } from '../../../test/factories';
import { hashToken, newToken } from '../../lib/tokens';
import { createJobs } from './jobs.service';
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

    const idem = (key: string, created: Date) =>
      k.insertInto('idempotency_keys').values({ user_id: user.id, key, method: 'POST', path: '/api/x', request_hash: 'h', created_at: created }).execute();
    await idem('fresh', at(-HOUR));
    await idem('almost', at(-DAY + 1));
    await idem('old', at(-DAY - 1));

    await k.insertInto('rate_limits').values({ key: 'recent', hits: 1, window_start: at(-HOUR) }).execute();
    await k.insertInto('rate_limits').values({ key: 'stale', hits: 1, window_start: at(-2 * DAY) }).execute();

    const jobs = createJobs({ db: k, now: () => NOW });
    schedulePurge(jobs, createPurge({ db: k, now: () => NOW }));
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
    expect((await k.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key)).toEqual(['almost', 'fresh']);
    expect((await k.selectFrom('rate_limits').select('key').execute()).map((r) => r.key)).toEqual(['recent']);

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
    const counts = await createPurge({ db: k, now: () => NOW }).run();
    expect(counts.failedJobs).toBe(1);
    expect(await k.selectFrom('jobs').select('failed_at').execute()).toEqual([{ failed_at: at(-29 * DAY) }]);
  });
});
