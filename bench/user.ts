// node --import tsx bench/user.ts: GET /api/user with a valid bearer token on a throwaway
// PostgreSQL, beside a bare Fastify route measured in the same run (issue 3). The token comes from
// a real POST /api/login of the admin that ADMIN_EMAIL/ADMIN_PASSWORD create at start-up, so the
// measured path is the one a signed-in page takes: hash the bearer, one indexed join, map the user.
import { type Figures, measure, printTable, startBare, startPostgres, startServer } from './lib';

const EMAIL = 'bench@adena.local';
const PASSWORD = 'bench-password-1';

const rows: Array<{ name: string } & Figures> = [];

const bare = await startBare();
const ceiling = await measure(`${bare.url}/bare`);
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
    rows.push({ name: 'GET /api/health (same app, no query)', ...(await measure(`${server.url}/api/health`)) });
    rows.push({ name: 'GET /api/user on PostgreSQL', ...(await measure(`${server.url}/api/user`, { headers })) });
  } finally {
    await server.stop();
  }
} finally {
  cluster.stop();
}

printTable(rows, ceiling);
