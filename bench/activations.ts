// node --import tsx bench/activations.ts [codes] [clients]: code activations per second on a
// throwaway PostgreSQL (issue 5). The real server runs as its own process; one seller pre-issues
// the codes through POST /api/show_code/, then 32 buyers (each with their own token and address,
// so the per-user and per-IP limits of wrong tries stay out of the way) activate them as fast as
// they can, one request in flight each. Ends with the ledger audit.
import { performance } from 'node:perf_hooks';
import { createUser, createWallet, firstServerId, fund } from '../apps/server/test/factories';
import { createDb } from '../apps/server/src/db/client';
import { auditLedger } from '../apps/server/src/modules/ledger/ledger.service';
import { startPostgres, startServer } from './lib';

const N = Number(process.argv[2] ?? 8000);
const CLIENTS = Number(process.argv[3] ?? 32);
const KK = 1_000_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const { cluster, databaseUrl } = await startPostgres('adena_bench_codes');
try {
  const server = await startServer({ databaseUrl, env: { TRUST_PROXY: '1' } });
  const db = await createDb({ databaseUrl, dataDir: '', poolSize: 4 });
  try {
    const k = db.kysely;
    const serverId = await firstServerId(k);
    const seller = await createUser(k, { name: 'Продавец' });
    const wallet = await createWallet(k, seller.id, serverId, 'Seller');
    await fund(k, wallet, BigInt(N) * 2n * BigInt(KK));
    const buyers = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => createUser(k, { name: `Покупатель ${i}` })));

    const post = (path: string, token: string, body: unknown, ip: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-for': ip },
        body: JSON.stringify(body),
      });

    // Pre-issue N codes with 8 parallel issuers (they queue on the seller's wallet row anyway).
    const serts: string[] = [];
    const issueStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          next++;
          const res = await post('/api/show_code/', seller.token, { gamesserver_id: serverId, nominal: KK, wallet_id: wallet.id }, '10.9.0.1');
          if (!res.ok) throw new Error(`show_code: HTTP ${res.status} ${await res.text()}`);
          serts.push(((await res.json()) as { sert: string }).sert);
        }
      }),
    );
    const issueSeconds = (performance.now() - issueStart) / 1000;

    // A short warm-up of the activation path on a few codes, not counted.
    const warm = serts.splice(0, Math.min(200, Math.floor(N / 10)));
    await Promise.all(warm.map((s, i) => post('/api/activation_code/', buyers[i % CLIENTS]!.token, { sert: s }, `10.8.0.${i % CLIENTS}`)));

    const latencies: number[] = [];
    let errors = 0;
    let cursor = 0;
    const start = performance.now();
    await Promise.all(
      buyers.map(async (b, i) => {
        const ip = `10.7.${Math.floor(i / 250)}.${i % 250}`;
        for (;;) {
          const sert = serts[cursor++];
          if (sert === undefined) return;
          const t0 = performance.now();
          const res = await post('/api/activation_code/', b.token, { sert }, ip);
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (res.status !== 200) errors++;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);

    const audit = await auditLedger(k);
    const active = await k.selectFrom('codes').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'active').executeTakeFirstOrThrow();
    const credited = await k
      .selectFrom('wallets')
      .select((eb) => eb.fn.sum<string>('balance').as('s'))
      .where('user_id', 'in', buyers.map((b) => b.id))
      .executeTakeFirstOrThrow();

    console.log(`\ncode activations on PostgreSQL, ${CLIENTS} concurrent clients, ${latencies.length} codes`);
    console.log(`  pre-issue (show_code, 8 clients): ${(N / issueSeconds).toFixed(0)} codes/s`);
    console.log(`  activations/s: ${(latencies.length / seconds).toFixed(0)}`);
    console.log(
      `  latency ms: p50 ${percentile(latencies, 50).toFixed(1)}  p90 ${percentile(latencies, 90).toFixed(1)}  p99 ${percentile(latencies, 99).toFixed(1)}  max ${latencies.at(-1)!.toFixed(1)}`,
    );
    console.log(`  non-200 answers: ${errors}; codes still active: ${active.n}; adena credited to buyers: ${credited.s}`);
    console.log(`  ledger audit: ${audit.ok ? 'ok' : `FAILED\n    ${audit.problems.join('\n    ')}`}`);
    if (!audit.ok || errors > 0 || Number(active.n) !== 0 || BigInt(credited.s) !== BigInt(N) * BigInt(KK)) process.exitCode = 1;
  } finally {
    await db.close();
    await server.stop();
  }
} finally {
  cluster.stop();
}
