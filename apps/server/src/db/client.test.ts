import { silentCut } from '../../test/fakes/silent-relay';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../test/harness';
import { connectionOf, createDb, type Db } from './client';
import { isDatabaseUnavailable } from './unavailable';
import { createLedgerAdminRepository } from '../modules/ledger/ledger-admin.repository';

// Statements are prepared per connection on PostgreSQL (client.ts). Another process migrating the
// database under a running server must not leave that server failing on its prepared SELECT *.
describe('prepared statements on PostgreSQL', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
    await sql`CREATE TABLE probe (id integer PRIMARY KEY, a text)`.execute(db.kysely);
    await sql`INSERT INTO probe VALUES (1, 'x')`.execute(db.kysely);
  });
  afterAll(() => db.close());

  const read = () => sql<Record<string, unknown>>`SELECT * FROM probe WHERE id = ${1}`.execute(db.kysely).then((r) => r.rows[0]);

  it('answers with the new shape after a column is added under it, outside a transaction at once', async () => {
    expect(await read()).toEqual({ id: 1, a: 'x' });
    expect(await read()).toEqual({ id: 1, a: 'x' }); // prepared on the one connection by now
    await sql`ALTER TABLE probe ADD COLUMN b text`.execute(db.kysely);
    expect(await read()).toEqual({ id: 1, a: 'x', b: null });
  });

  it('inside a transaction fails that transaction once, and works from then on', async () => {
    const inTx = () =>
      db.kysely.transaction().execute((trx) => sql<Record<string, unknown>>`SELECT * FROM probe WHERE id = ${2} OR id = ${1}`.execute(trx).then((r) => r.rows[0]));
    expect(await inTx()).toMatchObject({ id: 1 });
    await sql`ALTER TABLE probe ADD COLUMN c text`.execute(db.kysely);
    await expect(inTx()).rejects.toThrow(/cached plan/);
    expect(await inTx()).toEqual({ id: 1, a: 'x', b: null, c: null });
  });
});

// The pool's own limits (client.ts): a runaway statement is cancelled and a stalled transaction ended.
describe('session limits of the PostgreSQL pool', () => {
  let db: TestDb;
  let limited: Db;
  beforeAll(async () => {
    db = await createTestDb('postgres', 2);
    await sql`CREATE TABLE wallet_probe (id integer PRIMARY KEY, balance bigint NOT NULL)`.execute(db.kysely);
    await sql`INSERT INTO wallet_probe VALUES (1, 100)`.execute(db.kysely);
    // Limits short enough for a test, long enough that no ordinary statement or gap between two of one
    // transaction reaches them on a loaded machine.
    limited = await createDb({ databaseUrl: db.url, dataDir: '', poolSize: 2, statementTimeoutMs: 300, idleInTransactionMs: 2_000 });
  });
  afterAll(async () => {
    await limited?.close();
    await db.close();
  });

  it('cancels a statement that runs too long with an error answered as 503, and the pool serves the next one', async () => {
    const err = await sql`SELECT pg_sleep(3)`.execute(limited.kysely).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe('57014');
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(limited.kysely)).rows).toEqual([{ one: 1 }]);
  });

  it('lifts the statement limit for the ledger audit alone, in a read-only snapshot', async () => {
    const show = async (q: Db['kysely']) =>
      (await sql<{ limit: string; ro: string }>`SELECT current_setting('statement_timeout') AS limit, current_setting('transaction_read_only') AS ro`.execute(q)).rows[0];
    expect((await sql<{ jit: string }>`SELECT current_setting('jit') AS jit`.execute(limited.kysely)).rows).toEqual([{ jit: 'off' }]);
    expect(await show(limited.kysely)).toEqual({ limit: '300ms', ro: 'off' });
    expect(await createLedgerAdminRepository(limited.kysely).wholeLedger(show)).toEqual({ limit: '0', ro: 'on' });
    expect(await show(limited.kysely)).toEqual({ limit: '300ms', ro: 'off' });
  });

  it('keeps JIT off when DATABASE_URL brings server options of its own, and keeps those too, however the URL is written', async () => {
    const settingsVia = async (url: string) => {
      const own = await createDb({ databaseUrl: url, dataDir: '', poolSize: 1 });
      try {
        return (await sql<{ jit: string; mem: string }>`SELECT current_setting('jit') AS jit, current_setting('work_mem') AS mem`.execute(own.kysely)).rows[0];
      } finally {
        await own.close();
      }
    };
    const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;
    expect(await settingsVia(withQuery(String(db.url), `options=${encodeURIComponent('-c work_mem=5MB')}`))).toEqual({ jit: 'off', mem: '5MB' });
    // Written as pg's parser tolerates it (a bare % or space in the password, `=` unescaped): read as pg reads it
    // (diff review 19: re-encoding the query made PostgreSQL refuse «-c work_mem%3D5MB»). The cluster trusts every
    // connection, so the password itself is not checked.
    for (const password of ['50%off', 'p w']) {
      const url = String(db.url).replace(/^postgres(ql)?:\/\/([^:@/]+)(:[^@/]*)?@/, `postgres://$2:${password}@`);
      expect(url).toContain(password);
      expect(await settingsVia(withQuery(url, 'options=-c work_mem=5MB'))).toEqual({ jit: 'off', mem: '5MB' });
    }
    // The URL's other fields are pg's own reading of it; a URL without options gets ours alone.
    expect(connectionOf('postgres://u:50%off@/db?host=/var/run/postgresql', '-c jit=off')).toMatchObject({ host: '/var/run/postgresql', password: '50%off', options: '-c jit=off' });
    expect(connectionOf('postgres://u:p@h/db?options=-c%20a%3Db&options=-c%20c%3Dd#x', '-c jit=off')).toMatchObject({ options: '-c c=d -c jit=off' });
    expect(connectionOf('postgres://u:p%40ss@h:5/db?sslmode=disable', '-c jit=off')).toMatchObject({ password: 'p@ss', port: '5', options: '-c jit=off' });
  });

  it('ends a session stalled inside a transaction: the row it locked is free again and its change never lands', async () => {
    // A process that stops between its statements while holding a wallet's row.
    const stalled = await limited.pgPool!.connect();
    await stalled.query('BEGIN');
    await stalled.query('UPDATE wallet_probe SET balance = balance - 100 WHERE id = 1');
    // The victim's movement on the same row waits for the lock, then goes through once the
    // database has ended the stalled session (its limit is two seconds).
    const started = Date.now();
    await sql`UPDATE wallet_probe SET balance = balance + 5 WHERE id = 1`.execute(db.kysely);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await sql<{ balance: bigint }>`SELECT balance FROM wallet_probe WHERE id = 1`.execute(db.kysely)).rows).toEqual([{ balance: 105n }]);
    await expect(stalled.query('COMMIT')).rejects.toThrow();
    stalled.release(true);
    // The pool connects again for the next caller.
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(limited.kysely)).rows).toEqual([{ one: 1 }]);
  });
});

describe('a connection whose server went silent mid-statement', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
  });
  afterAll(() => db?.close());

  it('gives up on the statement at the client limit (503), ends that connection and serves the next call on a new one', async () => {
    const relay = await silentCut(new URL(db.url!));
    const cut = await createDb({ databaseUrl: relay.url, dataDir: '', poolSize: 1, queryTimeoutMs: 1_500 });
    let heal: (() => void) | undefined;
    try {
      expect((await sql<{ one: number }>`SELECT ${1}::int AS one`.execute(cut.kysely)).rows).toEqual([{ one: 1 }]);
      heal = relay.cut();
      const started = Date.now();
      const err = await sql`SELECT ${2}::int AS two`.execute(cut.kysely).then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as Error).message).toBe('Query read timeout');
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      // The pool (one connection) did not take the stuck client back: the next call gets a new one.
      const next = sql<{ three: number }>`SELECT ${3}::int AS three`.execute(cut.kysely);
      heal();
      heal = undefined;
      expect((await next).rows).toEqual([{ three: 3 }]);
      // A transaction that lifted the statement limit has no client limit either (migrations, the audit).
      const slow = await cut.kysely.transaction().execute(async (trx) => {
        await sql`SET LOCAL statement_timeout = 0`.execute(trx);
        return (await sql<{ ok: number }>`SELECT 1 AS ok FROM pg_sleep(2)`.execute(trx)).rows;
      });
      expect(slow).toEqual([{ ok: 1 }]);
      // Outside it, the limit holds again on the same connection.
      await expect(sql`SELECT pg_sleep(2)`.execute(cut.kysely)).rejects.toThrow('Query read timeout');
    } finally {
      heal?.();
      await cut.close();
      await relay.close();
    }
  });
});

// close() ends the pool though no query went through Kysely (whose destroy() ends it only after one did): an app
// whose only use of the pool was the realtime adapter's (its goodbye at close) kept an idle connection 10 s.
describe('closing a PostgreSQL Db that never queried through Kysely', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
  });
  afterAll(() => db?.close());

  it('ends its pool and the pool’s idle connection, once however often close() is called', async () => {
    const other = await createDb({ databaseUrl: db.url, dataDir: '' });
    const pool = other.pgPool!;
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    client.release();
    expect(pool.idleCount).toBe(1);
    const backend = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${pid}`.execute(db.kysely)).rows[0]!.n;
    expect(await backend()).toBe(1);
    await other.close();
    expect(pool.ended).toBe(true);
    expect(pool.totalCount).toBe(0);
    // The pool's end resolves as its connections' goodbyes go out; the backend is gone soon after (the idle timeout was 10 s).
    await expect.poll(backend, { timeout: 8_000 }).toBe(0);
    // A second close() neither ends the pool again (pg-pool rejects that) nor fails.
    await expect(other.close()).resolves.toBeUndefined();
  });

  it('ends the pool once when Kysely ended it too', async () => {
    const other = await createDb({ databaseUrl: db.url, dataDir: '' });
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(other.kysely)).rows).toEqual([{ one: 1 }]);
    await other.close();
    expect(other.pgPool!.ended).toBe(true);
    await expect(other.close()).resolves.toBeUndefined();
  });
});
