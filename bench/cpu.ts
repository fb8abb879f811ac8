// node --import tsx bench/cpu.ts [rounds]: the server's own CPU per request (user + system from /proc) on
// the public list, the health check and three signed-in reads, beside the bare Fastify route's, on a
// throwaway PostgreSQL. Throughput on these two shared cores moves by a fifth between identical runs
// (decision record 0027, third pass); the CPU a request costs the server moves less and does not count the
// load generator's share, so it is the figure to compare trees by: run it here and with
// BENCH_TREE=/path/to/other/checkout, alternating, and read the µs columns.
import { BENCH_ADMIN, type Figures, measure, signInAdmin, startBare, startPostgres, startServer, walletOnFirstServer } from './lib';

const ROUNDS = Number(process.argv[2] ?? 1);

const rows = new Map<string, Figures[]>();
const add = (name: string, f: Figures) => rows.set(name, [...(rows.get(name) ?? []), f]);

for (let round = 0; round < ROUNDS; round++) {
  const bare = await startBare();
  add('bare Fastify route (ceiling)', await measure(`${bare.url}/bare`, { cpuOf: bare.child.pid }));
  await bare.stop();

  const { cluster, databaseUrl } = await startPostgres();
  try {
    const server = await startServer({ databaseUrl, env: BENCH_ADMIN });
    try {
      const headers = await signInAdmin(server.url);
      // A wallet to list and to price.
      const serverId = await walletOnFirstServer(server.url, headers);
      const pid = server.child.pid;
      add('GET /api/gamesservers', await measure(`${server.url}/api/gamesservers`, { cpuOf: pid }));
      add('GET /api/health', await measure(`${server.url}/api/health`, { cpuOf: pid }));
      add('GET /api/user', await measure(`${server.url}/api/user`, { headers, cpuOf: pid }));
      add('GET /api/wallets', await measure(`${server.url}/api/wallets`, { headers, cpuOf: pid }));
      add('GET /api/auth_varianty_adeny_za_kod/:id', await measure(`${server.url}/api/auth_varianty_adeny_za_kod/${serverId}`, { headers, cpuOf: pid }));
    } finally {
      await server.stop();
    }
  } finally {
    cluster.stop();
  }
}

const tree = process.env.BENCH_TREE ?? 'this tree';
console.log(`\nserver CPU per request, ${tree}, ${ROUNDS} round(s) of 8 s at 32 connections (µs; req/s in brackets)`);
for (const [name, figures] of rows) {
  const cells = figures.map((f) => `${(f.cpuUs ?? Number.NaN).toFixed(1).padStart(6)} (${f.rps.toFixed(0)})`);
  console.log(`${name.padEnd(42)} ${cells.join('  ')}`);
}
