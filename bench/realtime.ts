// One server process holding 5,000 connected sockets. Measures the time from an operator's
// "complete deposit" call to the receipt of the user's `balance` event (p50, p99), and the
// server's memory per socket. Goal (issue 6): p99 under 25 ms.
import { readFileSync } from 'node:fs';
import { realtimeChannelFor } from '@adena/contract';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { hashToken, newToken } from '../apps/server/src/lib/tokens';
import { startPostgres, startServer } from './lib';

const SOCKETS = Number(process.env.SOCKETS ?? 5000);
const SAMPLES = Number(process.env.SAMPLES ?? 300);

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const { cluster, databaseUrl } = await startPostgres();
const server = await startServer({ databaseUrl });
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
try {
  // Users, their wallets (with a nick) and socket tokens straight into the database: the bench
  // measures delivery, not sign-up.
  const serverId = (await db.query('SELECT id FROM gamesservers ORDER BY sort_order LIMIT 1')).rows[0].id as number;
  const adminToken = newToken();
  const admin = (await db.query(`INSERT INTO users (email, name, admin) VALUES ('op@bench', 'op', true) RETURNING id`)).rows[0].id as number;
  await db.query(`INSERT INTO tokens (user_id, kind, token_hash) VALUES ($1, 'access', $2)`, [admin, hashToken(adminToken)]);
  const users: Array<{ id: number; access: string; socket: string }> = [];
  for (let i = 0; i < SOCKETS; i++) users.push({ id: 0, access: newToken(), socket: newToken() });
  for (let i = 0; i < users.length; i += 500) {
    const batch = users.slice(i, i + 500);
    const ids = (await db.query(`INSERT INTO users (email, name) SELECT 'u' || g || '-' || $1 || '@bench', 'u' FROM generate_series(1, $2) g RETURNING id`, [i, batch.length])).rows;
    batch.forEach((u, j) => {
      u.id = ids[j].id;
    });
    await db.query(
      `INSERT INTO tokens (user_id, kind, token_hash, expires_at)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::timestamptz[])`,
      [batch.flatMap((u) => [u.id, u.id]), batch.flatMap(() => ['access', 'realtime']), batch.flatMap((u) => [hashToken(u.access), hashToken(u.socket)]), batch.flatMap(() => [null, new Date(Date.now() + 3_600_000)])],
    );
    await db.query(`INSERT INTO wallets (user_id, gamesserver_id, nick) SELECT unnest($1::int[]), $2, 'Hero'`, [batch.map((u) => u.id), serverId]);
  }

  const before = rssOf(server.child.pid!);
  const sockets = new Map<number, Socket>();
  for (let i = 0; i < users.length; i += 250) {
    await Promise.all(
      users.slice(i, i + 250).map(
        (u) =>
          new Promise<void>((resolve, reject) => {
            const s = io(server.url, { path: '/socket.io/', auth: { token: u.socket }, transports: ['websocket'], reconnection: false });
            s.once('connect', () => {
              s.emit('subscribe', { channel: realtimeChannelFor(u.id) }, () => resolve());
            });
            s.once('connect_error', reject);
            sockets.set(u.id, s);
          }),
      ),
    );
  }
  await new Promise((r) => setTimeout(r, 2000));
  const after = rssOf(server.child.pid!);
  console.log(`${sockets.size} sockets connected; server RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB, ${((after - before) / sockets.size / 1024).toFixed(1)} KiB per socket`);

  const api = (path: string, token: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const u = users[(i * 7919) % users.length]!;
    const res = await api('/api/up_balance_user/', u.access, { gamesserver_id: serverId, amount: 1_000_000, currency_type: 1 });
    if (!res.ok) throw new Error(`deposit failed: ${res.status} ${await res.text()}`);
    const id = ((await res.json()) as { success: { id: number } }).success.id;
    const socket = sockets.get(u.id)!;
    const got = new Promise<number>((resolve) => {
      const on = (m: { name: string }) => {
        if (m.name !== 'balance') return;
        socket.off('message', on);
        resolve(performance.now());
      };
      socket.on('message', on);
    });
    const t0 = performance.now();
    const done = await api(`/api/admin/requests/${id}/complete`, adminToken, {});
    if (!done.ok) throw new Error(`complete failed: ${done.status} ${await done.text()}`);
    latencies.push((await got) - t0);
  }
  console.log(`operator's call → balance event, ${SAMPLES} samples: p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms (goal p99 < 25 ms)`);
  for (const s of sockets.values()) s.disconnect();
} finally {
  await db.end();
  await server.stop();
  cluster.stop();
}
