import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../test/harness';
import { migrate } from './migrate';

describe('migrate on pglite', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('pglite');
  });
  afterAll(() => db.close());

  it('applies nothing on a second run, and a function file again once its text differs from the one applied', async () => {
    expect(await migrate(db.kysely)).toEqual([]);
    const files = (await sql<{ name: string }>`SELECT name FROM schema_functions ORDER BY name`.execute(db.kysely)).rows.map((r) => r.name);
    expect(files).toEqual(['idempotency.sql', 'jobs.sql', 'ledger.sql', 'requests.sql', 'sessions.sql']);
    await sql`UPDATE schema_functions SET sha256 = 'an older text' WHERE name = 'ledger.sql'`.execute(db.kysely);
    expect(await migrate(db.kysely)).toEqual(['functions/ledger.sql']);
    expect(await migrate(db.kysely)).toEqual([]);
  });

  it('leaves the function files of a newer build that migrated the database (an old replica restarting mid-deploy)', async () => {
    await sql`INSERT INTO schema_migrations (name) VALUES ('9999_from_a_newer_build.sql')`.execute(db.kysely);
    await sql`UPDATE schema_functions SET sha256 = 'the newer build text' WHERE name = 'ledger.sql'`.execute(db.kysely);
    try {
      expect(await migrate(db.kysely)).toEqual([]);
      expect((await sql<{ sha256: string }>`SELECT sha256 FROM schema_functions WHERE name = 'ledger.sql'`.execute(db.kysely)).rows[0]!.sha256).toBe(
        'the newer build text',
      );
    } finally {
      await sql`DELETE FROM schema_migrations WHERE name = '9999_from_a_newer_build.sql'`.execute(db.kysely);
    }
    // A name this build does not know from before its last migration (one renamed since, as 0012 was) is no newer build.
    await sql`INSERT INTO schema_migrations (name) VALUES ('0012_references_without_row_locks.sql')`.execute(db.kysely);
    try {
      expect(await migrate(db.kysely)).toEqual(['functions/ledger.sql']);
    } finally {
      await sql`DELETE FROM schema_migrations WHERE name = '0012_references_without_row_locks.sql'`.execute(db.kysely);
    }
  });

  it('leaves the bearer rule to token_user, which refuses expired tokens and blocked users', async () => {
    const user = (await sql<{ id: number }>`INSERT INTO users (email, name) VALUES ('rule@example.com', 'R') RETURNING id`.execute(db.kysely)).rows[0]!;
    await sql`INSERT INTO tokens (user_id, kind, token_hash, expires_at) VALUES
      (${user.id}, 'access', 'live', NULL), (${user.id}, 'access', 'old', now() - interval '1 second'), (${user.id}, 'realtime', 'rt', now() + interval '1 minute')`.execute(db.kysely);
    const found = async (hash: string, kind: string) =>
      (await sql<{ id: number }>`SELECT * FROM token_user(${hash}, ${kind})`.execute(db.kysely)).rows.map((r) => r.id);
    expect(await found('live', 'access')).toEqual([user.id]);
    expect(await found('old', 'access')).toEqual([]);
    expect(await found('rt', 'access')).toEqual([]);
    expect(await found('rt', 'realtime')).toEqual([user.id]);
    expect((await sql<{ id: number }>`SELECT caller_id('live') AS id`.execute(db.kysely)).rows[0]!.id).toBe(user.id);
    await expect(sql`SELECT caller_id('old')`.execute(db.kysely)).rejects.toMatchObject({ code: 'AW401' });
    await sql`UPDATE users SET blocked_at = now() WHERE id = ${user.id}`.execute(db.kysely);
    expect(await found('live', 'access')).toEqual([]);
    await expect(sql`SELECT caller_id('live')`.execute(db.kysely)).rejects.toMatchObject({ code: 'AW401' });
  });

  it("finds a user by a linked Telegram chat through an index (a bot's `/stop` is anyone's to send)", async () => {
    const plan = await db.kysely.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const r = await sql<{ 'QUERY PLAN': string }>`EXPLAIN UPDATE users SET telegram_chat_id = NULL WHERE telegram_chat_id = ${42}`.execute(trx);
      return r.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('users_telegram_chat');
  });
});
