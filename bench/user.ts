// node --import tsx bench/user.ts: signed-in reads (GET /api/user, GET /api/wallets and the
// signed-in price data, at 50 connections) with a valid bearer token on a throwaway
// PostgreSQL, beside a bare Fastify route measured in the same run (issue 3). The token comes from
// a real POST /api/login of the admin that ADMIN_EMAIL/ADMIN_PASSWORD create at start-up, so the
// measured path is the one a signed-in page takes: hash the bearer, one indexed join, map the user.
import { type Figures, measure, printTable, startBare, startPostgres, startServer } from './lib';

const EMAIL = 'bench@adena.local';
const PASSWORD = 'bench-password-1';

const rows: Array<{ name: string } & Figures> = [];

const bare = await startBare();
const ceiling = await measure(`${bare.url}/bare`, { connections: 50 });
await bare.stop();
rows.push({ name: 'bare Fastify route (ceiling)', ...ceiling });

const { cluster, databaseUrl } = await startPostgres();
try {
  const server = await startServer({ databaseUrl, env: { ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD } });
  try {
    const res = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    if (!res.ok) throw new Error(`login failed: HTTP ${res.status} ${await res.text()}`);
    const { access_token } = (await res.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}` };
    const check = await fetch(`${server.url}/api/user`, { headers });
    if (!check.ok) throw new Error(`GET /api/user failed: HTTP ${check.status}`);
    // The same app answering without touching the database: what the query itself costs is the gap.
    rows.push({ name: 'GET /api/health (same app, no query)', ...(await measure(`${server.url}/api/health`, { connections: 50 })) });
    // Issue 19: 50 connections, p99 printed. The caller comes from the session cache (decision
    // record 0026); /api/wallets and the price data still read their own rows every time.
    const servers = (await (await fetch(`${server.url}/api/gamesservers`)).json()) as Array<{ id: number }>;
    const serverId = servers[0]?.id;
    if (serverId === undefined) throw new Error('no game server to read prices of');
    // A wallet to list: saving a nick makes one.
    const wallet = await fetch(`${server.url}/api/save_nick/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ gamesserver_id: serverId, nick: 'BenchHero' }) });
    if (!wallet.ok) throw new Error(`save_nick failed: HTTP ${wallet.status} ${await wallet.text()}`);
    const c50 = { headers, connections: 50 };
    rows.push({ name: 'GET /api/user on PostgreSQL (50 conn)', ...(await measure(`${server.url}/api/user`, c50)) });
    rows.push({ name: 'GET /api/wallets (50 conn)', ...(await measure(`${server.url}/api/wallets`, c50)) });
    rows.push({ name: `GET /api/auth_varianty_adeny_za_kod/${serverId} (50)`, ...(await measure(`${server.url}/api/auth_varianty_adeny_za_kod/${serverId}`, c50)) });
  } finally {
    await server.stop();
  }
} finally {
  cluster.stop();
}

printTable(rows, ceiling);
