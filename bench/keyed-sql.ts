// node --import tsx bench/keyed-sql.ts [seconds]: what an Idempotency-Key costs the withdrawal statement
// in PostgreSQL (decision record 0031). A throwaway cluster with 1 000 funded wallets; pgbench (32
// clients, prepared, as the server's pool prepares) runs the app's statement without a key and with a
// fresh key per call, two rounds each, and prints tps. TRY='sql' runs before measuring (e.g. redefine
// a function) and TRY_STATEMENT='…' adds a third case (pgbench variables :w wallet, :k key number).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../apps/server/src/db/client';
import { migrate } from '../apps/server/src/db/migrate';
import { seedDemoServers } from '../apps/server/src/modules/system/seed';
import { createUser, createWallet, firstServerId, fund } from '../apps/server/test/factories';
import { startPostgres } from './lib';

const SECONDS = Number(process.argv[2] ?? 6);
const WALLETS = 1000;

/** pgbench's tps, run as the cluster's owner (PostgreSQL runs as 'postgres' when the bench runs as root). */
function pgbench(databaseUrl: string, cwd: string, args: string[]): number {
  const base = '/usr/lib/postgresql';
  const bin = readdirSync(base)
    .map((v) => join(base, v, 'bin', 'pgbench'))
    .find((p) => existsSync(p));
  if (!bin) throw new Error('pgbench is missing (Debian package postgresql)');
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args, databaseUrl]] : [bin, [...args, databaseUrl]];
  const r = spawnSync(file, argv, { encoding: 'utf8', cwd });
  if (r.status !== 0) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  return Number(/tps = ([\d.]+)/.exec(r.stdout)?.[1]);
}

const { cluster, databaseUrl } = await startPostgres('adena_bench_keyed');
const work = mkdtempSync(join(tmpdir(), 'adena-keyed-'));
chmodSync(work, 0o777);
try {
  const db = await createDb({ databaseUrl, dataDir: '', poolSize: 4 });
  const k = db.kysely;
  await migrate(k);
  await seedDemoServers(k);
  const serverId = await firstServerId(k);
  for (let i = 0; i < WALLETS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, WALLETS - i) }, async (_, j) => {
        const p = await createUser(k, { name: `Игрок ${i + j}` });
        await fund(k, await createWallet(k, p.id, serverId, `Hero${i + j}`), 10n ** 15n);
      }),
    );
  }
  // A token per wallet whose hash pgbench can compute ('replay-' || wallet id).
  await db.pgPool!.query(`INSERT INTO tokens (user_id, kind, token_hash) SELECT user_id, 'access', 'replay-' || id FROM wallets WHERE gamesserver_id = $1`, [serverId]);
  const { rows } = await db.pgPool!.query(`SELECT min(id) AS lo, max(id) AS hi FROM wallets WHERE gamesserver_id = $1`, [serverId]);
  if (process.env.TRY) await db.pgPool!.query(process.env.TRY);
  await db.close();

  const head = `\\set w random(${rows[0].lo}, ${rows[0].hi})\n\\set k random(1, 1000000000)\n`;
  const key = `'k' || :k || '-' || :client_id`;
  const cases: Array<[string, string]> = [
    ['no key', `SELECT *, false AS replayed FROM request_open(withdrawer_id('replay-' || :w, false), ${serverId}, 'output', 1::smallint, 1000000::bigint);`],
    [
      'fresh key',
      `SELECT * FROM request_open_once(withdrawer_id('replay-' || :w, false, ${key}, 'h'), ${key}, 'POST', '/api/down_balance_user/', 'h', ${serverId}, 'output', 1::smallint, 1000000::bigint);`,
    ],
    ...(process.env.TRY_STATEMENT ? [['TRY_STATEMENT', process.env.TRY_STATEMENT] as [string, string]] : []),
  ];
  console.log(`the withdrawal statement in pgbench, ${SECONDS} s per case, 32 clients, prepared; tps per round`);
  for (let round = 1; round <= 2; round++) {
    for (const [i, [name, statement]] of cases.entries()) {
      writeFileSync(join(work, `case${i}.sql`), `${head}${statement}\n`);
      const tps = pgbench(databaseUrl, work, ['-n', '-c', '32', '-j', '2', '-T', String(SECONDS), '-M', 'prepared', '-f', `case${i}.sql`]);
      console.log(`round ${round}  ${name.padEnd(14)} ${Math.round(tps)}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
  cluster.stop();
}
