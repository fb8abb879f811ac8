import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../test/factories';
import { createTestApp, createTestDb, pgAdminUrl, type TestDb } from '../../test/harness';
import { auditLedger } from '../modules/ledger/ledger.service';
import { BackupError, backup, backupKindOf, restore } from './backup';
import { createDb, type Db } from './client';
import { migrate } from './migrate';

const KK = 1_000_000n;

/** Users, wallets with their balances, codes, and the ledger, as plain rows in a stable order. */
async function snapshot(db: Db) {
  const k = db.kysely;
  return {
    users: await k.selectFrom('users').select(['id', 'email', 'name', 'admin', 'password_hash']).orderBy('id').execute(),
    wallets: await k.selectFrom('wallets').select(['id', 'user_id', 'gamesserver_id', 'balance', 'balance_second']).orderBy('id').execute(),
    codes: await k.selectFrom('codes').selectAll().orderBy('id').execute(),
    entries: await k.selectFrom('ledger_entries').select(['id', 'transaction_id', 'account_id', 'amount', 'balance_after']).orderBy('id').execute(),
    migrations: (await k.selectFrom('schema_migrations').select('name').orderBy('name').execute()).map((r) => r.name),
  };
}

/** A few players with money and codes, made through the API like real ones. */
async function populate(db: TestDb) {
  const t = await createTestApp(db.kind, { db });
  try {
    const serverId = await firstServerId(db.kysely);
    for (let i = 0; i < 3; i++) {
      const user = await createUser(db.kysely);
      const wallet = await createWallet(db.kysely, user.id, serverId, `Hero${i}`);
      await fund(db.kysely, wallet, BigInt(100 + i) * KK);
      await fund(db.kysely, wallet, BigInt(5 + i), 2);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/show_code/',
        headers: user.auth,
        payload: { gamesserver_id: serverId, nominal: Number(KK) * (i + 1), wallet_id: wallet.id },
      });
      expect(res.statusCode).toBe(200);
    }
  } finally {
    await t.close();
  }
}

async function expectSameAfterRestore(before: Awaited<ReturnType<typeof snapshot>>, restored: Db) {
  expect(await snapshot(restored)).toEqual(before);
  expect(before.codes).toHaveLength(3);
  expect(await auditLedger(restored.kysely)).toMatchObject({ ok: true, problems: [] });
}

describe('backup and restore', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'adena-backup-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a file that is no backup', async () => {
    const file = join(dir, 'junk');
    writeFileSync(file, 'hello');
    expect(backupKindOf(file)).toBeNull();
    await expect(restore({ dataDir: join(dir, 'nowhere') }, file)).rejects.toThrow(`${file} is not a backup made by npm run backup`);
  });

  it('copies the embedded database: users, balances, codes and the ledger are identical and the audit clean', async () => {
    const source = join(dir, 'source');
    const db = (await createDb({ dataDir: source })) as TestDb;
    await migrate(db.kysely);
    await populate(db);
    const before = await snapshot(db);
    await db.close();

    const file = join(dir, 'embedded.backup');
    const made = await backup({ dataDir: source }, file);
    expect(made.kind).toBe('pglite');
    expect(backupKindOf(file)).toBe('pglite');

    await expect(restore({ dataDir: source }, file)).rejects.toThrow(/already holds a database; restore only into an empty DATA_DIR$/);
    await expect(restore({ dataDir: join(dir, 'x'), databaseUrl: 'postgres://nowhere/x' }, file)).rejects.toThrow(/backup of the embedded database/);

    const target = join(dir, 'target');
    expect(await restore({ dataDir: target }, file)).toEqual({ kind: 'pglite' });
    const restored = await createDb({ dataDir: target });
    try {
      await expectSameAfterRestore(before, restored);
      // The restored database takes migrations and writes like any other.
      expect(await migrate(restored.kysely)).toEqual([]);
      await createUser(restored.kysely);
    } finally {
      await restored.close();
    }
  }, 120_000);

  it('copies a PostgreSQL database into an empty one: identical and the audit clean', async () => {
    const db = await createTestDb('postgres');
    const adminUrl = pgAdminUrl();
    const name = `r_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await populate(db);
      const before = await snapshot(db);
      const file = join(dir, 'pg.backup');
      expect((await backup({ databaseUrl: db.url, dataDir: '' }, file)).kind).toBe('postgres');
      expect(backupKindOf(file)).toBe('postgres');

      await expect(restore({ databaseUrl: db.url, dataDir: '' }, file)).rejects.toThrow(
        new BackupError('the database at DATABASE_URL is not empty; restore only into a new, empty database'),
      );
      await expect(restore({ dataDir: join(dir, 'y') }, file)).rejects.toThrow(/is a PostgreSQL backup: set DATABASE_URL/);

      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
      const url = adminUrl.replace(/\/postgres$/, `/${name}`);
      expect(await restore({ databaseUrl: url, dataDir: '' }, file)).toEqual({ kind: 'postgres' });
      const restored = await createDb({ databaseUrl: url, dataDir: '' });
      try {
        await expectSameAfterRestore(before, restored);
        expect(await migrate(restored.kysely)).toEqual([]);
        await createUser(restored.kysely);
      } finally {
        await restored.close();
      }
    } finally {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 120_000);
});
