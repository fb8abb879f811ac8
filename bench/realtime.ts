// npm run bench:realtime (node --import tsx bench/realtime.ts): 5,000 signed-in users, one socket
// each (issues 6 and 19). Measures the time from an operator's "complete deposit" call, and from
// that call's COMMIT, to the receipt of the user's `balance` event (p50, p99), and memory per socket.
//
// One process (goal p99 < 25 ms): the app, beside a bare Fastify + Socket.IO server (the ceiling)
// and the same bare server with the PostgreSQL adapter the app installs (the adapter's share).
// Two processes on one PostgreSQL (goal p99 < 40 ms): every socket on process B, the operator's
// calls to process A; beside two bare Socket.IO servers with the PostgreSQL adapter, sockets on
// one and POST /emit to the other (the ceiling of relaying through PostgreSQL).
//
// Every server is its own process, with bench/probe.mjs stamping COMMIT, the adapter's pg_notify
// and Socket.IO's local broadcast in wall-clock time. Env: SOCKETS, SAMPLES, PROCESSES (1, 2 or
// both when unset).
import pg from 'pg';
import { type Proc, startPostgres, startScript, startServer } from './lib';
import { issueSocketTokens, measure, printResults, probeEnv, type Result, seed, type User } from './realtime-lib';

const SOCKETS = Number(process.env.SOCKETS ?? 5000);
const SAMPLES = Number(process.env.SAMPLES ?? 1000);
const PROCESSES = process.env.PROCESSES;

const { cluster, databaseUrl } = await startPostgres();
const db = new pg.Client({ connectionString: databaseUrl });
const procs: Proc[] = [];
const start = async <P extends Proc>(p: Promise<P>) => {
  const proc = await p;
  procs.push(proc);
  return proc;
};
const stopAll = async () => {
  for (const p of procs.splice(0).reverse()) await p.stop();
};

try {
  // The first app process migrates the database, which the seed needs.
  const pa = await probeEnv();
  const a = await start(startServer({ databaseUrl, env: pa.env }));
  await db.connect();
  const { users, adminToken, serverId } = await seed(db, SOCKETS);
  const api = (url: string, path: string, token: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** A pending deposit of the user's (not timed), then the operator's `complete` of it on `url`. */
  const completeOn = (url: string) => async (u: User) => {
    const res = await api(url, '/api/up_balance_user/', u.access, { gamesserver_id: serverId, amount: 1_000_000, currency_type: 1 });
    if (!res.ok) throw new Error(`deposit failed: ${res.status} ${await res.text()}`);
    const id = ((await res.json()) as { success: { id: number } }).success.id;
    return () => api(url, `/api/admin/requests/${id}/complete`, adminToken, {});
  };
  const emitOn = (url: string) => async (u: User) => () =>
    fetch(`${url}/emit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: u.id }) });
  const common = { users, samples: SAMPLES };

  if (PROCESSES !== '2') {
    const results: Result[] = [];
    await issueSocketTokens(db, users);
    const self = { label: 'app', port: pa.port };
    results.push(
      await measure({ ...common, name: 'app', socketsUrl: a.url, caller: self, receiver: self, tokenOf: (u) => u.socket, trigger: completeOn(a.url) }),
    );
    await stopAll();
    for (const [name, env] of [
      ['bare Socket.IO', {}],
      ['bare Socket.IO + PostgreSQL adapter', { ADAPTER: 'pg', DATABASE_URL: databaseUrl }],
    ] as const) {
      const p = await probeEnv();
      const bare = await start(startScript('bench/bare-realtime.ts', { ...env, ...p.env }));
      const me = { label: name, port: p.port };
      results.push(await measure({ ...common, name, socketsUrl: bare.url, caller: me, receiver: me, tokenOf: (u) => String(u.id), trigger: emitOn(bare.url) }));
      await stopAll();
    }
    printResults(`${SOCKETS} sockets on one server process, ${SAMPLES} sequential events each`, results, 25);
  }

  if (PROCESSES !== '1') {
    const results: Result[] = [];
    await stopAll();
    const pa2 = await probeEnv();
    const pb = await probeEnv();
    const a2 = await start(startServer({ databaseUrl, env: pa2.env }));
    const b = await start(startServer({ databaseUrl, env: pb.env }));
    await issueSocketTokens(db, users);
    results.push(
      await measure({
        ...common,
        name: 'app: sockets on B, calls to A',
        socketsUrl: b.url,
        caller: { label: 'A', port: pa2.port },
        receiver: { label: 'B', port: pb.port },
        tokenOf: (u) => u.socket,
        trigger: completeOn(a2.url),
      }),
    );
    await stopAll();
    const bareEnv = { ADAPTER: 'pg', DATABASE_URL: databaseUrl };
    const qa = await probeEnv();
    const qb = await probeEnv();
    const bareA = await start(startScript('bench/bare-realtime.ts', { ...bareEnv, ...qa.env }));
    const bareB = await start(startScript('bench/bare-realtime.ts', { ...bareEnv, ...qb.env }));
    results.push(
      await measure({
        ...common,
        name: 'bare Socket.IO + PostgreSQL adapter: sockets on B, emits to A',
        socketsUrl: bareB.url,
        caller: { label: 'A', port: qa.port },
        receiver: { label: 'B', port: qb.port },
        tokenOf: (u) => String(u.id),
        trigger: emitOn(bareA.url),
      }),
    );
    await stopAll();
    printResults(`${SOCKETS} sockets on process B of two on one PostgreSQL, ${SAMPLES} sequential events each`, results, 40);
  }
} finally {
  await stopAll().catch(() => {});
  await db.end().catch(() => {});
  cluster.stop();
}
