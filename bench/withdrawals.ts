// node --import tsx bench/withdrawals.ts [seconds] [clients]: withdrawals per second on a throwaway
// PostgreSQL (issue 4), with 32 concurrent clients against distinct wallets and against one hot
// wallet, beside pgbench's TPC-B-like transactions per second on the same cluster in the same run
// (the ceiling for one balance-moving transaction). The real server runs as its own process; each
// client keeps one POST /api/down_balance_user/ in flight. Ends with the ledger audit.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDb } from '../apps/server/src/db/client';
import { auditLedger } from '../apps/server/src/modules/ledger/audit';
import { createUser, createWallet, firstServerId, fund } from '../apps/server/test/factories';
import { startPostgres, startServer } from './lib';

const SECONDS = Number(process.argv[2] ?? 10);
const CLIENTS = Number(process.argv[3] ?? 32);
const KK = 1_000_000;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function pgbench(databaseUrl: string, args: string[]) {
  const base = '/usr/lib/postgresql';
  const bin = readdirSync(base)
    .map((v) => join(base, v, 'bin', 'pgbench'))
    .find((p) => existsSync(p));
  if (!bin) throw new Error('pgbench is missing (Debian package postgresql)');
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args, databaseUrl]] : [bin, [...args, databaseUrl]];
  const r = spawnSync(file, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

const { cluster, databaseUrl } = await startPostgres('adena_bench_withdrawals');
try {
  const server = await startServer({ databaseUrl });
  const db = await createDb({ databaseUrl, dataDir: '', poolSize: 4 });
  try {
    const k = db.kysely;
    const serverId = await firstServerId(k);
    const players = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => createUser(k, { name: `Игрок ${i}` })));
    const wallets = await Promise.all(players.map((p, i) => createWallet(k, p.id, serverId, `Hero${i}`)));
    // Enough for every withdrawal a client can make in the run (1кк each).
    for (const w of wallets) await fund(k, w, 1_000_000n * BigInt(KK));

    const withdraw = (token: string) =>
      fetch(`${server.url}/api/down_balance_user/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ gamesserver_id: serverId, amount: KK }),
      });

    /** Each client keeps one withdrawal in flight for `seconds`; `tokenOf` picks whose wallet it hits. */
    async function run(seconds: number, tokenOf: (client: number) => string) {
      const latencies: number[] = [];
      let errors = 0;
      const until = performance.now() + seconds * 1000;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, i) => {
          while (performance.now() < until) {
            const t0 = performance.now();
            const res = await withdraw(tokenOf(i));
            await res.arrayBuffer();
            latencies.push(performance.now() - t0);
            if (res.status !== 200) errors++;
          }
        }),
      );
      const elapsed = (performance.now() - start) / 1000;
      latencies.sort((a, b) => a - b);
      return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, n: latencies.length };
    }

    await run(2, (i) => players[i]!.token); // warm-up, not counted
    const distinct = await run(SECONDS, (i) => players[i]!.token);
    const hot = await run(SECONDS, () => players[0]!.token);

    // pgbench on the same cluster: its TPC-B-like script (3 UPDATEs, 1 SELECT, 1 INSERT per
    // transaction), scale 32 so the 32 clients mostly hit distinct branches, like our distinct wallets.
    const pgbenchUrl = databaseUrl.replace(/\/[^/]+$/, '/pgbench');
    await db.pgPool!.query('CREATE DATABASE pgbench');
    pgbench(pgbenchUrl, ['-i', '-q', '-s', String(CLIENTS)]);
    const out = pgbench(pgbenchUrl, ['-c', String(CLIENTS), '-j', '2', '-T', String(SECONDS), '-n']);
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? Number.NaN);

    const audit = await auditLedger(k);
    const rows = [
      { name: 'pgbench TPC-B-like (ceiling)', rps: tps, p50: Number.NaN, p99: Number.NaN, ratio: 1 },
      { name: `withdrawals, ${CLIENTS} distinct wallets`, ...distinct, ratio: distinct.rps / tps },
      { name: 'withdrawals, one hot wallet', ...hot, ratio: hot.rps / tps },
    ];
    console.log(`\nwithdrawals on PostgreSQL, ${CLIENTS} concurrent clients, ${SECONDS} s each`);
    console.log('| case | per s | p50 ms | p99 ms | of pgbench |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) {
      const f = (v: number) => (Number.isNaN(v) ? '–' : v.toFixed(1));
      console.log(`| ${r.name} | ${Math.round(r.rps).toLocaleString('ru-RU')} | ${f(r.p50)} | ${f(r.p99)} | ${r.ratio.toFixed(2)} |`);
    }
    console.log(`non-200 answers: ${distinct.errors + hot.errors}; ledger audit: ${audit.ok ? 'ok' : `FAILED\n  ${audit.problems.join('\n  ')}`}`);
    if (!audit.ok || distinct.errors + hot.errors > 0) process.exitCode = 1;
  } finally {
    await db.close();
    await server.stop();
  }
} finally {
  cluster.stop();
}
