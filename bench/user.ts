// node --import tsx bench/user.ts: signed-in reads (GET /api/user, GET /api/wallets and the
// signed-in price data, at 50 connections) with a valid bearer token on a throwaway
// PostgreSQL, beside a bare Fastify route measured in the same run (issue 3). The token comes from
// a real POST /api/login of the admin that ADMIN_EMAIL/ADMIN_PASSWORD create at start-up, so the
// measured path is the one a signed-in page takes: hash the bearer, one indexed join, map the user.
import pg from 'pg';
import { createDb } from '../apps/server/src/db/client';
import { createUser } from '../apps/server/test/factories';
import { BENCH_ADMIN, type Figures, measure, printTable, signInAdmin, startBare, startPostgres, startServer, walletOnFirstServer } from './lib';

// BENCH_PG_STATEMENTS=1: instead of measuring, count what PostgreSQL runs per call of each route
// (pg_stat_statements over 200 sequential calls), to see the round trips a call costs.
const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';


const rows: Array<{ name: string } & Figures> = [];

let ceiling: Figures = { rps: 1, p50: 0, p99: 0, errors: 0 };
if (!STATEMENTS) {
  const bare = await startBare();
  ceiling = await measure(`${bare.url}/bare`, { connections: 50, cpuOf: bare.child.pid });
  await bare.stop();
  rows.push({ name: 'bare Fastify route (ceiling)', ...ceiling });
}

const { cluster, databaseUrl } = await startPostgres();
try {
  if (STATEMENTS) {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    await admin.end();
    await cluster.restart();
    // Planning too: a prepared statement PostgreSQL plans afresh on every call (a custom plan) shows here.
    const again = new pg.Client({ connectionString: cluster.url });
    await again.connect();
    await again.query(`ALTER SYSTEM SET pg_stat_statements.track_planning = on`);
    await again.query('SELECT pg_reload_conf()');
    await again.end();
  }
  const server = await startServer({ databaseUrl, env: BENCH_ADMIN });
  try {
    const headers = await signInAdmin(server.url);
    const check = await fetch(`${server.url}/api/user`, { headers });
    if (!check.ok) throw new Error(`GET /api/user failed: HTTP ${check.status}`);
    // The same app answering without touching the database: what the query itself costs is the gap.
    rows.push({ name: 'GET /api/health (same app, no query)', ...(await measure(`${server.url}/api/health`, { connections: 50, cpuOf: server.child.pid })) });
    // Issue 19: 50 connections, p99 printed. The caller comes from the session cache (decision
    // record 0026); /api/wallets and the price data still read their own rows every time.
    // A wallet to list and to price.
    const serverId = await walletOnFirstServer(server.url, headers);
    if (STATEMENTS) {
      await countStatements(server.url, headers, ['/api/user', '/api/wallets', `/api/auth_varianty_adeny_za_kod/${serverId}`]);
      process.exit(0);
    }
    const c50 = { headers, connections: 50, cpuOf: server.child.pid };
    rows.push({ name: 'GET /api/user on PostgreSQL (50 conn)', ...(await measure(`${server.url}/api/user`, c50)) });
    rows.push({ name: 'GET /api/wallets (50 conn)', ...(await measure(`${server.url}/api/wallets`, c50)) });
    rows.push({ name: `GET /api/auth_varianty_adeny_za_kod/${serverId} (50)`, ...(await measure(`${server.url}/api/auth_varianty_adeny_za_kod/${serverId}`, c50)) });
    // The same reads by 50 different players, one per connection: nothing is shared between callers
    // of different keys, so this is what a crowd of players gets.
    const players = await playersWithWallets(server.url, serverId, 50);
    const crowd = { connections: 50, cpuOf: server.child.pid, perConnection: players.map((token) => ({ authorization: `Bearer ${token}` })) };
    rows.push({ name: 'GET /api/user, 50 players', ...(await measure(`${server.url}/api/user`, crowd)) });
    rows.push({ name: 'GET /api/wallets, 50 players', ...(await measure(`${server.url}/api/wallets`, crowd)) });
    rows.push({ name: `GET /api/auth_varianty_…/${serverId}, 50 players`, ...(await measure(`${server.url}/api/auth_varianty_adeny_za_kod/${serverId}`, crowd)) });
  } finally {
    await server.stop();
  }
} finally {
  cluster.stop();
}

printTable(rows, ceiling);

/** `n` players with a live bearer each (made in the database, as the tests' factory does) and a wallet on the server. */
async function playersWithWallets(base: string, serverId: number, n: number): Promise<string[]> {
  const db = await createDb({ databaseUrl, dataDir: '', poolSize: 4 });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) {
      const { token } = await createUser(db.kysely, { name: `Игрок ${i}` });
      const res = await fetch(`${base}/api/save_nick/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ gamesserver_id: serverId, nick: `Hero${i}` }),
      });
      if (!res.ok) throw new Error(`save_nick failed: HTTP ${res.status}`);
      tokens.push(token);
    }
    return tokens;
  } finally {
    await db.close();
  }
}

/** Statements PostgreSQL ran per call of each path, over 200 calls one after another. */
async function countStatements(base: string, headers: Record<string, string>, paths: string[]) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const N = 200;
  for (const path of paths) {
    for (let i = 0; i < 20; i++) await (await fetch(`${base}${path}`, { headers })).arrayBuffer();
    await db.query('SELECT pg_stat_statements_reset()');
    for (let i = 0; i < N; i++) {
      const res = await fetch(`${base}${path}`, { headers });
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
      await res.arrayBuffer();
    }
    const { rows } = await db.query<{ calls: string; ms: number; plans: string; planMs: number; query: string }>(
      `SELECT calls, total_exec_time AS ms, plans, total_plan_time AS "planMs", query FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' AND calls >= $1 ORDER BY calls DESC`,
      [N / 2],
    );
    console.log(`\n${path}: statements per call (${N} calls)`);
    for (const r of rows) {
      const calls = Number(r.calls);
      const planned = Number(r.plans) ? `, planned ${((100 * Number(r.plans)) / calls).toFixed(0)}% of calls, ${(r.planMs / Number(r.plans)).toFixed(3)} ms a plan` : '';
      console.log(`  ${(calls / N).toFixed(2)}×  ${(r.ms / calls).toFixed(3)} ms${planned}  ${r.query.replace(/\s+/g, ' ').slice(0, 150)}`);
    }
  }
  await db.end();
}
