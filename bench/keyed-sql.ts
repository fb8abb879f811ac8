// node --import tsx bench/keyed-sql.ts [seconds]: what an Idempotency-Key costs the withdrawal statement
// in PostgreSQL (decision record 0031). A throwaway cluster with 1 000 funded wallets; pgbench (32
// clients, prepared, as the server's pool prepares) runs the app's statement without a key and with a
// fresh key per call, two rounds each, and prints tps. TRY='sql' runs before measuring (e.g. redefine
// a function) and TRY_STATEMENT='…' adds a third case (pgbench variables :w wallet, :k key number).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from './lib';
import { pgbench } from './pgbench';
import { replayDatabase } from './replay-db';

const SECONDS = Number(process.argv[2] ?? 6);
const WALLETS = 1000;

/** pgbench's tps. */
const tpsOf = (out: string) => Number(/tps = ([\d.]+)/.exec(out)?.[1]);

const { cluster, databaseUrl } = await startPostgres('adena_bench_keyed');
const work = mkdtempSync(join(tmpdir(), 'adena-keyed-'));
chmodSync(work, 0o777);
try {
  const { serverId, lo, hi } = await replayDatabase(databaseUrl, WALLETS);
  if (process.env.TRY) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(process.env.TRY);
    await c.end();
  }

  const head = `\\set w random(${lo}, ${hi})\n\\set k random(1, 1000000000)\n`;
  const key = `'k' || :k || '-' || :client_id`;
  const cases: Array<[string, string]> = [
    ['no key', `SELECT r.*, false AS replayed FROM request_open(withdrawer_id('replay-' || :w, false), ${serverId}, 'output', 1::smallint, 1000000::bigint) r WHERE bearer_still_live('replay-' || :w, r.user_id);`],
    [
      'fresh key',
      `SELECT r.* FROM request_open_once(withdrawer_id('replay-' || :w, false, ${key}, 'h'), ${key}, 'POST', '/api/down_balance_user/', 'h', ${serverId}, 'output', 1::smallint, 1000000::bigint) r WHERE bearer_still_live('replay-' || :w, r.user_id);`,
    ],
    ...(process.env.TRY_STATEMENT ? [['TRY_STATEMENT', process.env.TRY_STATEMENT] as [string, string]] : []),
  ];
  console.log(`the withdrawal statement in pgbench, ${SECONDS} s per case, 32 clients, prepared; tps per round`);
  for (let round = 1; round <= 2; round++) {
    for (const [i, [name, statement]] of cases.entries()) {
      writeFileSync(join(work, `case${i}.sql`), `${head}${statement}\n`);
      const tps = tpsOf(pgbench(databaseUrl, ['-n', '-c', '32', '-j', '2', '-T', String(SECONDS), '-M', 'prepared', '-f', `case${i}.sql`], work));
      console.log(`round ${round}  ${name.padEnd(14)} ${Math.round(tps)}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
  cluster.stop();
}
