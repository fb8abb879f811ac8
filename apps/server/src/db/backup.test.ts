import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../test/factories';
import { createTestApp, createTestDb, pgAdminUrl, type TestDb } from '../../test/harness';
import { freePort } from '../../test/pg-cluster';
import { auditLedger } from '../modules/ledger/ledger.service';
import { BackupError, backup, backupKindOf, libpqUrl, restore, splitPassword } from './backup';
import { createDb, type Db } from './client';
import { migrate } from './migrate';

const KK = 1_000_000n;
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../../../..');

/** A file's or folder's permission bits. */
const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * A PG_BIN_DIR whose pg_dump and pg_restore only record what they were given (arguments, PGPASSWORD,
 * their umask, the mode of the file they write into) in `record`, and pg_dump writes a file that
 * passes for a dump.
 */
function fakePgBin(root: string) {
  const bin = join(root, 'bin');
  const record = join(root, 'record');
  mkdirSync(bin, { recursive: true });
  mkdirSync(record, { recursive: true });
  for (const tool of ['pg_dump', 'pg_restore']) {
    const script = [
      '#!/bin/sh',
      `out=${record}/${tool}`,
      'printf \'%s\\n\' "$@" > "$out.argv"',
      'if env | grep -q ^PGPASSWORD=; then printf %s "$PGPASSWORD"; else printf "(unset)"; fi > "$out.password"',
      'umask > "$out.umask"',
      'for a in "$@"; do case "$a" in --file=*) f=$(printf %s "$a" | cut -c8-); stat -c %a "$f" > "$out.filemode"; printf PGDMP-fake > "$f";; esac; done',
      '',
    ].join('\n');
    writeFileSync(join(bin, tool), script);
    chmodSync(join(bin, tool), 0o755);
  }
  const read = (tool: string, what: string) => readFileSync(join(record, `${tool}.${what}`), 'utf8');
  return { bin, argv: (tool: string) => read(tool, 'argv').trimEnd().split('\n'), read };
}

/**
 * A PG_BIN_DIR whose pg_dump opens its --file at once and writes into it for about a second: `PGDMP <its pid>`,
 * ten lines, `end`. It fails at once, having written half a line, when the database's name is `fail`.
 */
function slowPgDump(root: string) {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const script = [
    '#!/bin/sh',
    'for a in "$@"; do case "$a" in --file=*) f=$(printf %s "$a" | cut -c8-);; --dbname=*) db=$(basename -- "$a");; esac; done',
    'exec 3>"$f"',
    'printf "PGDMP $$\\n" >&3',
    'if [ "$db" = fail ]; then printf chu >&3; echo "connection to server failed: no such database" >&2; exit 1; fi',
    'for i in 0 1 2 3 4 5 6 7 8 9; do printf "chunk $i\\n" >&3; sleep 0.1; done',
    'printf "end\\n" >&3',
    '',
  ].join('\n');
  writeFileSync(join(bin, 'pg_dump'), script);
  chmodSync(join(bin, 'pg_dump'), 0o755);
  return bin;
}

/** `npm run backup` or `restore` (ops/cli.ts) with only these settings: its exit code and its output's lines. */
async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, '../ops/cli.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  return { code, lines: out.trim().split('\n') };
}

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
    // Its owner's alone, whatever the umask (this test runner's is 022).
    expect(modeOf(file)).toBe(0o600);

    await expect(restore({ dataDir: source }, file)).rejects.toThrow(/already holds a database; restore only into an empty DATA_DIR$/);
    await expect(restore({ dataDir: join(dir, 'x'), databaseUrl: 'postgres://nowhere/x' }, file)).rejects.toThrow(/backup of the embedded database/);

    const target = join(dir, 'target');
    expect(await restore({ dataDir: target }, file)).toEqual({ kind: 'pglite' });
    // A DATA_DIR made by the restore, and its database folder, are their owner's alone.
    expect([modeOf(target), modeOf(join(target, 'pglite'))]).toEqual([0o700, 0o700]);
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
      // A URL with parameters only node-postgres knows, as the app may be configured with: pg_dump takes it too.
      expect((await backup({ databaseUrl: `${db.url}?ssl=false&uselibpqcompat=true`, dataDir: '' }, file)).kind).toBe('postgres');
      expect(backupKindOf(file)).toBe('postgres');
      expect(modeOf(file)).toBe(0o600);

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

describe('npm run backup and restore when the database or the file is wrong', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'adena-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restore: one line naming DATABASE_URL when PostgreSQL is not listening, or refuses its database or role', async () => {
    // Passes for a dump (its first bytes): every run below stops before pg_restore would read it.
    const file = join(dir, 'pg.backup');
    writeFileSync(file, 'PGDMP-fake');
    const closed = await freePort();
    const url = new URL(pgAdminUrl());
    const noDatabase = new URL(url);
    noDatabase.pathname = '/no_such_database';
    // The test cluster trusts every role, so an unknown role stands in for a wrong password (28P01, the same path).
    const noRole = new URL(url);
    noRole.username = 'no_such_role';
    const runs = await Promise.all(
      [`postgres://postgres@127.0.0.1:${closed}/adena`, noDatabase.href, noRole.href].map((DATABASE_URL) => runCli(['restore', file], { DATABASE_URL })),
    );
    expect(runs).toEqual([
      { code: 1, lines: [`DATABASE_URL: the database cannot be reached (connect ECONNREFUSED 127.0.0.1:${closed})`] },
      { code: 1, lines: ['DATABASE_URL: database "no_such_database" does not exist (3D000)'] },
      { code: 1, lines: ['DATABASE_URL: role "no_such_role" does not exist (28000)'] },
    ]);
  });

  it('backup: one line naming the file when its folder does not exist', async () => {
    const fake = fakePgBin(join(dir, 'fake'));
    const file = join(dir, 'missing', 'x.backup');
    expect(await runCli(['backup', file], { DATABASE_URL: 'postgres://adena@127.0.0.1:1/adena', PG_BIN_DIR: fake.bin })).toEqual({
      code: 1,
      lines: [`cannot write ${file}: no folder ${join(dir, 'missing')} (ENOENT)`],
    });
  });
});

describe('the database password and pg_dump / pg_restore', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'adena-pgpass-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("turns node-postgres's own URL parameters into libpq's, which pg_dump would refuse", () => {
    expect(libpqUrl('postgres://adena@db/adena?ssl=true')).toBe('postgres://adena@db/adena?sslmode=require');
    expect(libpqUrl('postgres://adena@db/adena?ssl=false&application_name=x')).toBe('postgres://adena@db/adena?application_name=x');
    expect(libpqUrl('postgres://adena@db/adena?sslmode=no-verify&uselibpqcompat=true')).toBe('postgres://adena@db/adena?sslmode=require');
    expect(libpqUrl('postgres://adena@db/adena?sslmode=verify-full')).toBe('postgres://adena@db/adena?sslmode=verify-full');
    expect(libpqUrl('postgres://adena@db/adena')).toBe('postgres://adena@db/adena');
  });

  it('takes the password out of the URL, decoded as libpq reads it', () => {
    expect(splitPassword('postgres://adena:hunter2@db:5432/adena')).toEqual({ url: 'postgres://adena@db:5432/adena', password: 'hunter2' });
    expect(splitPassword('postgresql://adena:p%40ss%3Aw%2Frd@db/adena?sslmode=require')).toEqual({
      url: 'postgresql://adena@db/adena?sslmode=require',
      password: 'p@ss:w/rd',
    });
    expect(splitPassword('postgres://:secret@db/adena')).toEqual({ url: 'postgres://db/adena', password: 'secret' });
    expect(splitPassword('postgres://adena@db/adena?sslmode=require&password=a%26b&application_name=x')).toEqual({
      url: 'postgres://adena@db/adena?sslmode=require&application_name=x',
      password: 'a&b',
    });
    expect(splitPassword('postgres://adena@db/adena?password=x')).toEqual({ url: 'postgres://adena@db/adena', password: 'x' });
    expect(splitPassword('postgres://adena:a@db/adena?password=b')).toEqual({ url: 'postgres://adena@db/adena', password: 'b' });
    expect(splitPassword('postgres://adena:pa/ss@w@db/adena')).toEqual({ url: 'postgres://adena@db/adena', password: 'pa/ss@w' });
    expect(splitPassword('postgres://adena@db/adena')).toEqual({ url: 'postgres://adena@db/adena' });
    expect(splitPassword('postgres:///adena?host=/run/postgresql')).toEqual({ url: 'postgres:///adena?host=/run/postgresql' });
  });

  it('gives it to pg_dump and pg_restore in PGPASSWORD, never on their command line', async () => {
    const fake = fakePgBin(join(dir, 'inproc'));
    const file = join(dir, 'fake.backup');
    const databaseUrl = 'postgres://adena:hunter%402@127.0.0.1:1/adena?sslmode=disable';
    expect(await backup({ databaseUrl, dataDir: '', pgBinDir: fake.bin }, file)).toEqual({ kind: 'postgres', bytes: 10 });
    const [, , , fileArg, ...rest] = fake.argv('pg_dump');
    expect(fake.argv('pg_dump')).toEqual(['--format=custom', '--no-owner', '--no-privileges', fileArg, ...rest]);
    // Written under a name of this run's own beside the file, then renamed.
    expect(fileArg?.startsWith(`--file=${file}.${process.pid}.`)).toBe(true);
    expect(fileArg).toMatch(/\.\d+\.[0-9a-f]{12}\.partial$/);
    expect(rest).toEqual(['--dbname=postgres://adena@127.0.0.1:1/adena?sslmode=disable']);
    expect(fake.read('pg_dump', 'password')).toBe('hunter@2');
    // The file pg_dump wrote into was 0600 from the start, and stays so.
    expect(fake.read('pg_dump', 'filemode').trim()).toBe('600');
    expect(modeOf(file)).toBe(0o600);

    // pg_restore: into an empty database of the test cluster (which trusts, so any password goes).
    const adminUrl = pgAdminUrl();
    const name = `e_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
      const target = new URL(adminUrl.replace(/\/postgres$/, `/${name}`));
      target.password = 'p%40ss word';
      await restore({ databaseUrl: target.href, dataDir: '', pgBinDir: fake.bin }, file);
      target.password = '';
      expect(fake.argv('pg_restore')).toEqual(['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${target.href}`, file]);
      expect(fake.read('pg_restore', 'password')).toBe('p@ss word');
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    }
    // No password in the URL: none is set, an operator's own PGPASSWORD is left as it is.
    await backup({ databaseUrl: 'postgres://adena@127.0.0.1:1/adena', dataDir: '', pgBinDir: fake.bin }, file);
    expect(fake.argv('pg_dump').at(-1)).toBe('--dbname=postgres://adena@127.0.0.1:1/adena');
    expect(fake.read('pg_dump', 'password')).toBe(process.env.PGPASSWORD ?? '(unset)');
  });

  it('two backups to one file at once: each writes its own file, so each finishes with a whole dump; a failed one leaves nothing', async () => {
    const bin = slowPgDump(join(dir, 'slow'));
    const folder = join(dir, 'two');
    mkdirSync(folder);
    const file = join(folder, 'adena.backup');
    const target = { databaseUrl: 'postgres://adena@127.0.0.1:1/adena', dataDir: '', pgBinDir: bin };
    const whole = /^PGDMP (\d+)\n(chunk \d\n){10}end\n$/;
    const first = backup(target, file);
    await new Promise((r) => setTimeout(r, 300));
    const second = backup(target, file);
    // The first's file is its own whole dump, not the second's half-written one (which it renamed into place
    // after the second had deleted its file: both ran under the one name FILE.partial).
    const one = await first;
    const afterFirst = readFileSync(file, 'utf8');
    expect(afterFirst).toMatch(whole);
    expect(one).toEqual({ kind: 'postgres', bytes: afterFirst.length });
    // The second finishes too (it died of ENOENT on the name the first had taken away), with its own whole dump.
    const two = await second;
    const afterSecond = readFileSync(file, 'utf8');
    expect(afterSecond).toMatch(whole);
    expect(whole.exec(afterSecond)?.[1]).not.toBe(whole.exec(afterFirst)?.[1]);
    expect(two).toEqual({ kind: 'postgres', bytes: afterSecond.length });
    expect(modeOf(file)).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['adena.backup']);

    // A pg_dump that fails: one line, the existing backup untouched, its half-written file removed.
    await expect(backup({ ...target, databaseUrl: 'postgres://adena@127.0.0.1:1/fail' }, file)).rejects.toThrow(
      new BackupError('pg_dump failed: connection to server failed: no such database'),
    );
    expect(readFileSync(file, 'utf8')).toBe(afterSecond);
    expect(readdirSync(folder)).toEqual(['adena.backup']);
  }, 30_000);

  it('a run killed outright leaves its half-written copy; the next backup to that file removes it, not a running one’s nor another file’s', async () => {
    const fake = fakePgBin(join(dir, 'leftovers'));
    const folder = join(dir, 'leftovers-folder');
    mkdirSync(folder);
    const file = join(folder, 'adena.backup');
    // A process that has ended: its pid names a leftover. One still running (another backup) keeps its file.
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const running = spawn('sleep', ['30']);
    try {
      // This process's own pid too, when it is not writing that file: run as one container per backup, every run
      // is pid 1, and a killed run's file looked like the running one's.
      const names = [
        `adena.backup.${gone.pid}.0123456789ab.partial`,
        `adena.backup.${running.pid}.0123456789ab.partial`,
        `other.backup.${gone.pid}.0123456789ab.partial`,
        `adena.backup.${process.pid}.0123456789ab.partial`,
      ];
      for (const name of names) writeFileSync(join(folder, name), 'PGDMP half', { mode: 0o600 });
      await backup({ databaseUrl: 'postgres://adena@127.0.0.1:1/adena', dataDir: '', pgBinDir: fake.bin }, file);
      expect(readdirSync(folder).sort()).toEqual(['adena.backup', names[1], names[2]].sort());
    } finally {
      running.kill();
    }
  });

  it('npm run backup stopped by Ctrl-C (SIGINT) or a stop (SIGTERM): pg_dump is ended, one line, exit 1, no half-written copy left', async () => {
    const bin = slowPgDump(join(dir, 'stopped'));
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const folder = join(dir, `stopped-${sig}`);
      mkdirSync(folder);
      const file = join(folder, 'adena.backup');
      const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, '../ops/cli.ts'), 'backup', file], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'postgres://adena@127.0.0.1:1/adena', PG_BIN_DIR: bin },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        out += d;
      });
      const exited = new Promise<number | null>((r) => child.on('exit', r));
      // pg_dump is writing (its copy has appeared): only the CLI gets the signal, as from `kill`.
      for (let i = 0; i < 300 && !readdirSync(folder).some((n) => n.endsWith('.partial')); i++) await new Promise((r) => setTimeout(r, 20));
      const partial = readdirSync(folder);
      expect(partial).toHaveLength(1);
      for (let i = 0; i < 100 && !readFileSync(join(folder, partial[0]!), 'utf8').includes('\n'); i++) await new Promise((r) => setTimeout(r, 10));
      const dumpPid = Number(/^PGDMP (\d+)\n/.exec(readFileSync(join(folder, partial[0]!), 'utf8'))?.[1]);
      child.kill(sig);
      expect(await exited).toBe(1);
      expect(out.trim()).toBe('backup interrupted: nothing written');
      expect(readdirSync(folder)).toEqual([]);
      // pg_dump (which would have written for about a second more) has ended: gone, or a zombie left for init to reap.
      const state = (() => {
        try {
          return readFileSync(`/proc/${dumpPid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
        } catch {
          return 'gone';
        }
      })();
      expect(['gone', 'Z']).toContain(state);
    }
  }, 60_000);

  it('npm run backup: the password reaches pg_dump in PGPASSWORD only, and the CLI and pg_dump run under umask 077', async () => {
    const fake = fakePgBin(join(dir, 'cli'));
    const file = join(dir, 'cli.backup');
    const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, '../ops/cli.ts'), 'backup', file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'postgres://adena:hunter2@127.0.0.1:1/adena', PG_BIN_DIR: fake.bin },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(out.trim()).toBe(`backup of the PostgreSQL database written to ${file} (10 bytes)`);
    expect(code).toBe(0);
    expect(fake.argv('pg_dump').join(' ')).not.toContain('hunter2');
    expect(fake.argv('pg_dump').at(-1)).toBe('--dbname=postgres://adena@127.0.0.1:1/adena');
    expect(fake.read('pg_dump', 'password')).toBe('hunter2');
    expect(fake.read('pg_dump', 'umask').trim()).toBe('0077');
    expect(modeOf(file)).toBe(0o600);
  }, 60_000);
});
