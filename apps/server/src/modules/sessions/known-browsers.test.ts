import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../../test/factories';
import { createTestDb, DB_KINDS, holdLocks, type TestDb } from '../../../test/harness';
import { KNOWN_BROWSERS_MAX, sessionsRepository as repo } from './sessions.repository';

/**
 * The browsers a user signed in from: the newest KNOWN_BROWSERS_MAX are kept. Stress round 6: two sign-ins of one
 * player at once (Telegram, Discord, a passkey: their sign-ins run in a transaction) from the two browsers it used
 * longest ago each refreshed its own row and then tried to delete the other's, which the other's snapshot still
 * showed as stale: a deadlock, and one sign-in answered 503.
 */
describe.each(DB_KINDS)('remembered browsers on %s', (kind) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb(kind);
  });
  afterAll(() => db.close());

  async function sixBrowsers() {
    const u = await createUser(db.kysely);
    const hashes = Array.from({ length: KNOWN_BROWSERS_MAX + 1 }, (_, i) => `${String(i).repeat(2)}${u.id}`.padEnd(64, 'b'));
    // The first was used longest ago.
    await db.kysely
      .insertInto('known_browsers')
      .values(hashes.map((h, i) => ({ user_id: u.id, browser_hash: h, last_seen_at: new Date(Date.now() - (10 - i) * 86_400_000) })))
      .execute();
    return { userId: u.id, hashes };
  }
  const kept = async (userId: number) =>
    (await db.kysely.selectFrom('known_browsers').select('browser_hash').where('user_id', '=', userId).execute()).map((r) => r.browser_hash).sort();

  it('a sign-in keeps the newest five, its own browser among them', async () => {
    const { userId, hashes } = await sixBrowsers();
    await repo.rememberBrowser(db.kysely, userId, hashes[0]!);
    expect(await kept(userId)).toEqual([hashes[0], ...hashes.slice(2)].sort());
  });

  it.runIf(kind === 'postgres')('two sign-ins from the two browsers used longest ago, at once: both go through, five or six kept', async () => {
    const { userId, hashes } = await sixBrowsers();
    const [oldest, next] = [hashes[0]!, hashes[1]!];
    // One sign-in has refreshed its browser's row and is about to trim.
    const first = await holdLocks(
      db.kysely,
      (trx) =>
        trx
          .updateTable('known_browsers')
          .set({ last_seen_at: new Date() })
          .where('user_id', '=', userId)
          .where('browser_hash', '=', oldest)
          .execute(),
      (trx) => repo.rememberBrowser(trx, userId, oldest),
    );
    // The other, from the next browser, goes through without waiting for the first's row.
    const second = db.kysely.transaction().execute((trx) => repo.rememberBrowser(trx, userId, next));
    const settled = await Promise.race([second.then(() => 'done'), new Promise((r) => setTimeout(r, 10_000, 'waiting'))]);
    await first.release();
    await second;
    expect(settled).toBe('done');
    const rows = await kept(userId);
    expect(rows).toEqual(expect.arrayContaining([oldest, next]));
    expect(rows.length).toBeGreaterThanOrEqual(KNOWN_BROWSERS_MAX);
    expect(rows.length).toBeLessThanOrEqual(KNOWN_BROWSERS_MAX + 1);
  });
});
