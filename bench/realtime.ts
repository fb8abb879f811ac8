// node --import tsx bench/realtime.ts: one server process holding 5,000 connected sockets (issue 6).
// Measures the time from an operator's "complete deposit" call, and from that call's COMMIT, to
// the receipt of the user's `balance` event (p50, p99), and the server's memory per socket. Beside
// it, in the same harness: a bare Fastify + Socket.IO server (the ceiling), and the same bare server
// with the PostgreSQL adapter the app installs (to isolate the adapter's share). Goal: p99 < 25 ms.
// Each server runs alone, as its own process, with bench/probe.mjs stamping COMMIT, the adapter's
// pg_notify and Socket.IO's local broadcast in wall-clock time. Env: SOCKETS, SAMPLES.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { realtimeChannelFor } from '@adena/contract';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { freePort } from '../apps/server/test/pg-cluster';
import { hashToken, newToken } from '../apps/server/src/lib/tokens';
import { type Proc, ROOT, startPostgres, startScript, startServer } from './lib';

const SOCKETS = Number(process.env.SOCKETS ?? 5000);
const SAMPLES = Number(process.env.SAMPLES ?? 1000);
const WARMUP = 50;

const wall = () => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Mark {
  kind: 'commit' | 'notify' | 'local';
  start: number;
  end: number;
}
interface User {
  id: number;
  access: string;
  socket: string;
}
interface Result {
  name: string;
  rssKiB: number;
  heapKiB: number;
  callToEvent: number[];
  response: number[];
  commitToEvent: number[];
  notify: number[];
  localToEvent: number[];
}

const probeEnv = async () => {
  const port = await freePort();
  return { port, env: { PROBE_PORT: String(port), NODE_OPTIONS: `--expose-gc --import=${join(ROOT, 'bench/probe.mjs')}` } };
};
const probe = async <T>(port: number, path = '/') => (await (await fetch(`http://127.0.0.1:${port}${path}`)).json()) as T;

/** Connects one socket per user (250 handshakes at a time), each subscribed to its own channel. */
async function connectAll(url: string, users: User[], tokenOf: (u: User) => string) {
  const sockets = new Map<number, Socket>();
  for (let i = 0; i < users.length; i += 250) {
    await Promise.all(
      users.slice(i, i + 250).map(
        (u) =>
          new Promise<void>((resolve, reject) => {
            const s = io(url, { path: '/socket.io/', auth: { token: tokenOf(u) }, transports: ['websocket'], reconnection: false });
            s.once('connect', () => {
              s.emit('subscribe', { channel: realtimeChannelFor(u.id) }, (a: { ok?: boolean }) => (a?.ok ? resolve() : reject(new Error(JSON.stringify(a)))));
            });
            s.once('connect_error', reject);
            sockets.set(u.id, s);
          }),
      ),
    );
  }
  return sockets;
}

const nextBalance = (socket: Socket) =>
  new Promise<number>((resolve) => {
    const on = (m: { name: string }) => {
      if (m.name !== 'balance') return;
      socket.off('message', on);
      resolve(wall());
    };
    socket.on('message', on);
  });

/**
 * Holds SOCKETS sockets on `server`, then SAMPLES times: `prepare` (not timed), a clean probe,
 * `trigger` timed to its response and to the balance event, and the probe's marks.
 */
async function measure(
  name: string,
  server: Proc,
  probePort: number,
  users: User[],
  tokenOf: (u: User) => string,
  trigger: (u: User) => Promise<() => Promise<Response>>,
): Promise<Result> {
  const before = await probe<NodeJS.MemoryUsage>(probePort, '/gc');
  const sockets = await connectAll(server.url, users, tokenOf);
  await sleep(2000);
  const after = await probe<NodeJS.MemoryUsage>(probePort, '/gc');
  const r: Result = {
    name,
    rssKiB: (after.rss - before.rss) / sockets.size / 1024,
    heapKiB: (after.heapUsed + after.external - before.heapUsed - before.external) / sockets.size / 1024,
    callToEvent: [],
    response: [],
    commitToEvent: [],
    notify: [],
    localToEvent: [],
  };
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const u = users[(i * 7919) % users.length]!;
    const call = await trigger(u);
    await probe(probePort); // clears the marks of the preparation
    const got = nextBalance(sockets.get(u.id)!);
    const t0 = wall();
    const res = await call();
    const tRes = wall();
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    const tEv = await got;
    const marks = await probe<Mark[]>(probePort);
    if (i < WARMUP) continue;
    r.callToEvent.push(tEv - t0);
    r.response.push(tRes - t0);
    const local = marks.filter((m) => m.kind === 'local').at(-1);
    const commit = marks.filter((m) => m.kind === 'commit' && (!local || m.end <= local.start)).at(-1);
    const notify = marks.filter((m) => m.kind === 'notify' && (!local || m.end <= local.start + 0.01)).at(-1);
    if (commit) r.commitToEvent.push(tEv - commit.end);
    if (notify) r.notify.push(notify.end - notify.start);
    if (local) r.localToEvent.push(tEv - local.start);
  }
  for (const s of sockets.values()) s.disconnect();
  await sleep(1000);
  return r;
}

const { cluster, databaseUrl } = await startPostgres();
const db = new pg.Client({ connectionString: databaseUrl });
const results: Result[] = [];
try {
  let users: User[] = [];
  let adminToken = '';
  let serverId = 0;
  {
    const p = await probeEnv();
    const server = await startServer({ databaseUrl, env: p.env });
    try {
      await db.connect();
      // Users, their wallets (with a nick) and socket tokens straight into the database: the bench
      // measures delivery, not sign-up.
      serverId = (await db.query('SELECT id FROM gamesservers ORDER BY sort_order LIMIT 1')).rows[0].id as number;
      adminToken = newToken();
      const admin = (await db.query(`INSERT INTO users (email, name, admin) VALUES ('op@bench', 'op', true) RETURNING id`)).rows[0].id as number;
      await db.query(`INSERT INTO tokens (user_id, kind, token_hash) VALUES ($1, 'access', $2)`, [admin, hashToken(adminToken)]);
      users = Array.from({ length: SOCKETS }, () => ({ id: 0, access: newToken(), socket: newToken() }));
      for (let i = 0; i < users.length; i += 500) {
        const batch = users.slice(i, i + 500);
        const ids = (
          await db.query(`INSERT INTO users (email, name) SELECT 'u' || g || '-' || $1 || '@bench', 'u' FROM generate_series(1, $2) g RETURNING id`, [i, batch.length])
        ).rows;
        batch.forEach((u, j) => {
          u.id = ids[j].id;
        });
        await db.query(
          `INSERT INTO tokens (user_id, kind, token_hash, expires_at)
           SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::timestamptz[])`,
          [
            batch.flatMap((u) => [u.id, u.id]),
            batch.flatMap(() => ['access', 'realtime']),
            batch.flatMap((u) => [hashToken(u.access), hashToken(u.socket)]),
            batch.flatMap(() => [null, new Date(Date.now() + 3_600_000)]),
          ],
        );
        await db.query(`INSERT INTO wallets (user_id, gamesserver_id, nick) SELECT unnest($1::int[]), $2, 'Hero'`, [batch.map((u) => u.id), serverId]);
      }
      const api = (path: string, token: string, body: unknown) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      results.push(
        await measure('app (PostgreSQL adapter)', server, p.port, users, (u) => u.socket, async (u) => {
          const res = await api('/api/up_balance_user/', u.access, { gamesserver_id: serverId, amount: 1_000_000, currency_type: 1 });
          if (!res.ok) throw new Error(`deposit failed: ${res.status} ${await res.text()}`);
          const id = ((await res.json()) as { success: { id: number } }).success.id;
          return () => api(`/api/admin/requests/${id}/complete`, adminToken, {});
        }),
      );
    } finally {
      await server.stop();
    }
  }
  for (const [name, env] of [
    ['bare Socket.IO', {}],
    ['bare Socket.IO + PostgreSQL adapter', { ADAPTER: 'pg', DATABASE_URL: databaseUrl }],
  ] as const) {
    const p = await probeEnv();
    const server = await startScript('bench/bare-realtime.ts', { ...env, ...p.env });
    try {
      const emit = (u: User) => () =>
        fetch(`${server.url}/emit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: u.id }) });
      results.push(await measure(name, server, p.port, users, (u) => String(u.id), async (u) => emit(u)));
    } finally {
      await server.stop();
    }
  }

  const f = (xs: number[]) => (xs.length ? `${pct(xs, 50).toFixed(1)} / ${pct(xs, 99).toFixed(1)}` : '–');
  console.log(`\n${SOCKETS} sockets on one server process, ${SAMPLES} sequential events each; ms as p50 / p99 (goal: p99 < 25 ms)`);
  console.log('| server | call → event | call → response | COMMIT → event | pg_notify | broadcast → event | KiB/socket RSS | KiB/socket heap |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${f(r.callToEvent)} | ${f(r.response)} | ${f(r.commitToEvent)} | ${f(r.notify)} | ${f(r.localToEvent)} | ${r.rssKiB.toFixed(1)} | ${r.heapKiB.toFixed(1)} |`,
    );
  }
  const app = results[0]!;
  const p99 = pct(app.callToEvent, 99);
  console.log(`app: p99 call → event ${p99.toFixed(1)} ms: ${p99 < 25 ? 'goal met' : 'goal NOT met'}; max ${Math.max(...app.callToEvent).toFixed(1)} ms`);
} finally {
  await db.end().catch(() => {});
  cluster.stop();
}
