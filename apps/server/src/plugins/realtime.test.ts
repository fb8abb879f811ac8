import { once } from 'node:events';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Server } from 'socket.io';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentCut } from '../../test/fakes/silent-relay';
import { waitFor } from '../../test/fakes/wait-for';
import { sql } from 'kysely';
import { createTestApp, createTestDb, gate, realtimeListening, type TestDb } from '../../test/harness';
import { createUser, createWallet, firstServerId } from '../../test/factories';
import { subscribedSocket } from '../../test/sockets';
import { createDb } from '../db/client';
import { LISTEN_PROBE, oneListener, peerAwareAdapter } from './realtime-adapter';

const BROADCAST = 3; // socket.io-adapter's MessageType.BROADCAST
const HEARTBEAT_TIMEOUT = 10_000; // the adapter's default, as in the app

/**
 * Values as they arrive, and a promise for any one of them: every wait in this file is for the
 * event itself (a vitest timeout ends a test that waits for one that never comes), never for time.
 */
function arrivals() {
  const seen: number[] = [];
  const waiting = new Map<number, () => void>();
  return {
    seen,
    push(v: number) {
      seen.push(v);
      waiting.get(v)?.();
    },
    of: (v: number) => (seen.includes(v) ? Promise.resolve() : new Promise<void>((r) => waiting.set(v, r))),
  };
}

/**
 * A pool as the app makes one (db/client.ts): an idle client losing its server is dropped, not an
 * uncaught exception. Tests need it at teardown: `pool.end()` resolves before its connections have
 * closed, and dropping the test database (WITH FORCE) then terminates them.
 */
/** Holds each LISTEN the client sends until `go` opens (`held` opens at the first); its other queries go through. */
function holdListens(client: pg.PoolClient, held: ReturnType<typeof gate>, go: ReturnType<typeof gate>) {
  const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
  client.query = ((...a: unknown[]) => {
    if (typeof a[0] !== 'string' || !a[0].startsWith('LISTEN')) return query(...a);
    held.open();
    return go.opened.then(() => query(...a));
  }) as typeof client.query;
  return client;
}

function testPool(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  return pool;
}

/**
 * One "process": its own pool, HTTP server and Socket.IO server on the shared database, and one
 * client whose socket is in room 'r'. The adapter decides "alone" on `clock` (the test moves it);
 * its heartbeats keep real time.
 */
async function node(url: string, clock: { now: number }, heartbeat: { heartbeatTimeout: number; heartbeatInterval?: number } = { heartbeatTimeout: HEARTBEAT_TIMEOUT }) {
  const pool = testPool(url);
  const http: HttpServer = createServer();
  const io = new Server(http);
  io.adapter(peerAwareAdapter(pool, { ...heartbeat, now: () => clock.now }));
  const joined = new Promise<void>((r) =>
    io.on('connection', (s) => {
      void s.join('r');
      r();
    }),
  );
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const client: Socket = connectClient(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ['websocket'], reconnection: false });
  const received = arrivals();
  client.on('m', (v: number) => received.push(v));
  await Promise.all([new Promise<void>((r) => client.once('connect', () => r())), joined]);
  return {
    io,
    received,
    pool,
    peers: async () => (await io.of('/').adapter.serverCount()) - 1,
    async close() {
      client.disconnect();
      await new Promise((r) => io.close(r));
      await pool.end();
    },
  };
}

describe('the realtime adapter relays broadcasts only when a peer can hear them', () => {
  let db: TestDb;
  let spy: pg.Client;
  const relayed = arrivals();
  beforeAll(async () => {
    db = await createTestDb('postgres');
    spy = new pg.Client({ connectionString: db.url });
    await spy.connect();
    spy.on('notification', (n) => {
      const msg = JSON.parse(n.payload ?? '{}') as { type?: number; data?: { packet?: { data?: [string, number] } } };
      if (msg.type === BROADCAST) relayed.push(msg.data!.packet!.data![1]);
    });
    await spy.query('LISTEN "socket.io#/"');
  });
  afterAll(async () => {
    await spy?.end();
    await db?.close();
  });

  /**
   * Until `count` adapters' LISTEN connections are up (besides the spy's own): from then on an
   * adapter counts how long it has listened, and hears what is NOTIFYed. A process's heartbeat goes
   * out through its pool, so being heard does not mean it listens yet. In this test's database only:
   * other test files' apps listen on the same channel name in theirs, and counting those let the test
   * go on before its own adapter listened (CI run 82: the event never reached the second process).
   */
  async function listenersUp(count: number) {
    for (;;) {
      const { rows } = await spy.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query IN ('LISTEN "socket.io#/"', $1) AND pid <> pg_backend_pid()`, [LISTEN_PROBE]);
      if (rows.length >= count) return;
      await new Promise((r) => setImmediate(r));
    }
  }

  async function until(check: () => Promise<boolean>) {
    while (!(await check())) await new Promise((r) => setImmediate(r));
  }

  it('relays while it may not have heard its peers yet, keeps events local when alone, and relays again once a peer joins', async () => {
    const clock = { now: 1_000_000 };
    const a = await node(db.url!, clock);
    const nodes = [a];
    try {
      // Just started listening: a peer could exist unheard, so the event goes through PostgreSQL.
      a.io.to('r').emit('m', 1);
      await Promise.all([a.received.of(1), relayed.of(1)]);

      // Listening for longer than the heartbeat timeout and no peer: delivered here, no NOTIFY.
      await listenersUp(1);
      clock.now += HEARTBEAT_TIMEOUT + 1;
      expect(await a.peers()).toBe(0);
      a.io.to('r').emit('m', 2);
      await a.received.of(2);

      // A second process starts: once its first heartbeat is heard, the first relays again and its socket gets the event.
      const b = await node(db.url!, clock);
      nodes.push(b);
      await until(async () => (await a.peers()) === 1);
      await listenersUp(2);
      a.io.to('r').emit('m', 3);
      await Promise.all([a.received.of(3), b.received.of(3), relayed.of(3)]);
      // A relayed 2 would have been NOTIFYed, and committed, before 2 reached a's own socket, so
      // before 3 was even emitted: PostgreSQL delivers notifications in commit order.
      expect(relayed.seen).toEqual([1, 3]);
      expect(a.received.seen).toEqual([1, 2, 3]);
      expect(b.received.seen).toEqual([3]);
    } finally {
      for (const n of nodes) await n.close();
    }
  });

  it('keeps relaying to a peer it stopped hearing for a while (its pool full, its heartbeats waiting), whose sockets still listen', async () => {
    const clock = { now: 2_000_000 };
    // Short heartbeats, so a peer is forgotten within a couple of seconds of silence.
    const beat = { heartbeatTimeout: 1_000, heartbeatInterval: 200 };
    const a = await node(db.url!, clock, beat);
    const b = await node(db.url!, clock, beat);
    try {
      await until(async () => (await a.peers()) === 1);
      await listenersUp(2);
      a.io.to('r').emit('m', 1);
      await b.received.of(1);
      // b's pool is full (4 connections: its LISTEN one and three long statements): its heartbeats wait, a forgets it.
      const held = [1, 2, 3].map(() => b.pool.query('SELECT pg_sleep(8)'));
      await until(async () => (await a.peers()) === 0);
      // Listening long past the heartbeat timeout: alone, a would keep its events to itself.
      clock.now += beat.heartbeatTimeout + 1;
      a.io.to('r').emit('m', 2);
      // b's LISTEN connection is its own: the event reaches b's socket while its pool is still full.
      await b.received.of(2);
      await Promise.all(held);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('the LISTEN connection of the adapter', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres');
  });
  afterAll(() => db?.close());

  it('stays one when the adapter reconnects twice for one loss: the older client stops hearing and goes back to the pool', async () => {
    const pool = testPool(db.url!);
    const hooks = { connected: 0, ended: 0 };
    const watched = oneListener(pool, { connected: () => hooks.connected++, ended: () => hooks.ended++ });
    try {
      // The adapter's two reconnection timers, as when a connection dropped during its LISTEN.
      const heard: string[] = [];
      const first = await watched.connect();
      first.on('notification', () => heard.push('first'));
      let firstEnded = false;
      first.on('end', () => {
        firstEnded = true; // the adapter's own listener: would schedule a third reconnection
      });
      await first.query('LISTEN probe');
      const second = await watched.connect();
      const arrived = new Promise<void>((r) =>
        second.on('notification', () => {
          heard.push('second');
          r();
        }),
      );
      await second.query('LISTEN probe');
      await pool.query(`NOTIFY probe, 'x'`);
      await arrived;
      expect(heard).toEqual(['second']);
      expect(firstEnded).toBe(false);
      // Only the second is checked out; the first's slot is free again.
      expect(pool.totalCount - pool.idleCount).toBe(1);
      expect(hooks).toEqual({ connected: 2, ended: 0 });
      // The live one ending tells the adapter, once.
      const gone = once(second, 'end');
      second.release(new Error('gone'));
      await gone;
      expect(hooks.ended).toBe(1);
    } finally {
      await pool.end();
    }
  });
  it('is found dead when its network goes silent without a word (no FIN, no RST), and the adapter is told to connect again', async () => {
    const relay = await silentCut(new URL(db.url!));
    const pool = testPool(relay.url);
    const hooks = { connected: 0, ended: 0 };
    const watched = oneListener(pool, { connected: () => hooks.connected++, ended: () => hooks.ended++ }, { probeEveryMs: 200, probeBoundMs: 3_000 });
    let heal: (() => void) | undefined;
    try {
      const client = await watched.connect();
      await client.query('LISTEN probe');
      // Answered probes leave a healthy connection alone.
      await new Promise((r) => setTimeout(r, 700));
      expect(hooks).toEqual({ connected: 1, ended: 0 });
      heal = relay.cut();
      // Keep-alive alone would take minutes; the unanswered probe ends the client.
      await waitFor(() => (hooks.ended === 1 ? true : undefined), 'the silent LISTEN connection to be ended', 10_000);
      expect(pool.totalCount).toBe(0);
    } finally {
      heal?.();
      await pool.end();
      await relay.close();
    }
  });

  it('after close() ends the client the adapter did not hand back, and answers a later checkout with nothing, not a failure to retry', async () => {
    const pool = testPool(db.url!);
    const hooks = { connected: 0, ended: 0 };
    const watched = oneListener(pool, { connected: () => hooks.connected++, ended: () => hooks.ended++ });
    // Checked out, its LISTEN not yet done: the adapter has not taken it as its client, so its close() hands nothing back.
    const client = await watched.connect();
    const removed = once(pool, 'remove'); // once the client's connection has ended
    watched.close();
    expect(await removed).toEqual([client]);
    expect(pool.totalCount).toBe(0);
    await pool.end();
    // The adapter's next reconnection after the close: no client, and no error (the adapter would try again every 2 s).
    const answer = await Promise.race([
      watched.connect().then(
        () => 'a client',
        () => 'a failure',
      ),
      new Promise((r) => setImmediate(() => r('nothing yet'))),
    ]);
    expect(answer).toBe('nothing yet');
    expect(hooks).toEqual({ connected: 1, ended: 0 });
  });
});

/**
 * The adapter sets its LISTEN client only once the checkout and its LISTEN have finished (@socket.io/postgres-adapter
 * 0.5.0, util.js initClient), and its close() hands back only that one. An app closed while a reconnection was under
 * way (1–3 s after an outage) kept the new client checked out for good: the pool's end, so db.close(), never
 * finished, and the connection stayed open.
 */
describe('closing the app while the adapter reconnects its LISTEN connection', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres', 1);
  });
  afterAll(() => db?.close());

  /** Where the reconnection is held at close: its checkout done but not yet handed to the adapter, or its LISTEN not yet sent. */
  it.each(['checkout', 'LISTEN'] as const)('db.close() finishes and no connection of the app is left, the reconnection held at its %s', async (stage) => {
    const tag = `zz_rt_close_${stage.toLowerCase()}`;
    const appDb = await createDb({ databaseUrl: `${db.url}?application_name=${tag}`, dataDir: '', poolSize: 3 });
    const t = await createTestApp('postgres', { db: appDb, seed: false, env: { JOBS: 'off' } });
    const backends = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${tag}`.execute(db.kysely)).rows[0]!.n;
    const held = gate();
    const go = gate();
    let closed = false;
    try {
      // The app has queried (its pool's end is Kysely's) and its adapter listens.
      await sql`SELECT 1`.execute(appDb.kysely);
      await realtimeListening(db, 1);
      // The adapter's next checkout (promise-style; pool.query's go through the callback) is held at `stage`.
      const pool = appDb.pgPool!;
      const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
      pool.connect = ((...args: unknown[]) => {
        if (args.length > 0) return (connect as (...a: unknown[]) => unknown)(...args);
        pool.connect = connect as typeof pool.connect;
        return connect().then(async (client) => {
          if (stage === 'checkout') {
            held.open();
            await go.opened;
            return client;
          }
          return holdListens(client, held, go);
        });
      }) as typeof pool.connect;
      // An outage of the LISTEN connection: the adapter reconnects 1–3 s later.
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE application_name = ${tag} AND query IN ('LISTEN "socket.io#/"', ${LISTEN_PROBE})`.execute(db.kysely);
      await held.opened;
      await t.close();
      go.open();
      const outcome = await Promise.race([
        appDb.close().then(() => 'closed'),
        // A bound for a close that never finishes, not a wait: a passing close takes milliseconds.
        new Promise((r) => setTimeout(() => r('still waiting'), 5_000).unref()),
      ]);
      closed = outcome === 'closed';
      expect(outcome).toBe('closed');
      // The pool's end resolves as the goodbyes go out; the backends are gone right after.
      await expect.poll(backends, { timeout: 8_000 }).toBe(0);
    } finally {
      go.open();
      if (!closed) await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${tag}`.execute(db.kysely);
    }
  });
});

/**
 * While a process's LISTEN connection is away (a restart or failover of the database, the probe ending a silent
 * connection), what other processes NOTIFY never reaches it. Its sockets stayed connected and were told nothing:
 * a player's open page kept an old balance and «pending» until the socket reconnected for another reason.
 */
describe('a process whose LISTEN connection is lost and comes back', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('postgres');
  });
  afterAll(() => db?.close());

  it("closes its sockets once it listens again, so a player's page re-reads a deposit completed on another process meanwhile", async () => {
    const tag = 'zz_rt_relisten_b';
    const a = await createTestApp('postgres', { db, env: { JOBS: 'off' } });
    const dbB = await createDb({ databaseUrl: `${db.url}?application_name=${tag}`, dataDir: '' });
    const b = await createTestApp('postgres', { db: { ...dbB, url: db.url }, seed: false, env: { JOBS: 'off' } });
    const spy = new pg.Client({ connectionString: db.url });
    const go = gate();
    let restore = () => {};
    let socket: Socket | undefined;
    try {
      await realtimeListening(db, 2);
      const serverId = await firstServerId(db.kysely);
      const player = await createUser(db.kysely);
      await createWallet(db.kysely, player.id, serverId);
      const operator = await createUser(db.kysely, { admin: true });
      await b.app.listen({ port: 0, host: '127.0.0.1' });
      const token = await b.app.inject({ method: 'POST', url: '/api/ably-token', headers: player.auth, payload: {} });
      const sub = await subscribedSocket(`http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`, token.json());
      socket = sub.socket;
      let disconnected: string | undefined;
      socket.on('disconnect', (reason) => {
        disconnected = reason;
      });
      const heardBalance = () => sub.messages.some((m) => m.name === 'balance');

      // What A sends for the player, as PostgreSQL delivers it to listeners.
      let notified = false;
      await spy.connect();
      spy.on('notification', (n) => {
        if (n.payload?.includes(`"channel":"private:user.${player.id}"`) && n.payload.includes('"name":"balance"')) notified = true;
      });
      await spy.query('LISTEN "socket.io#/"');

      // B's adapter reconnects 1–3 s after the loss; its LISTEN on the new connection is held here until A's event is out.
      const pool = dbB.pgPool!;
      const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
      const held = gate();
      pool.connect = ((...args: unknown[]) => {
        if (args.length > 0) return (connect as (...a: unknown[]) => unknown)(...args);
        return connect().then((client) => holdListens(client, held, go));
      }) as typeof pool.connect;
      restore = () => {
        pool.connect = connect as typeof pool.connect;
      };
      const listening = async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = ${tag} AND query IN ('LISTEN "socket.io#/"', ${LISTEN_PROBE})`.execute(db.kysely)
        ).rows[0]!.n;
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = current_database() AND application_name = ${tag} AND query IN ('LISTEN "socket.io#/"', ${LISTEN_PROBE})`.execute(db.kysely);
      await waitFor(async () => ((await listening()) === 0 ? true : undefined), "B's LISTEN connection to end");
      await held.opened;

      // An operator on A completes the player's deposit while B does not listen.
      const dep = await a.app.inject({ method: 'POST', url: '/api/up_balance_user/', headers: player.auth, payload: { gamesserver_id: serverId, amount: 2_000_000 } });
      expect(dep.statusCode).toBe(200);
      const done = await a.app.inject({ method: 'POST', url: `/api/admin/requests/${dep.json().success.id}/complete`, headers: operator.auth, payload: {} });
      expect(done.statusCode).toBe(200);
      await waitFor(() => (notified ? true : undefined), "A's balance event to be NOTIFYed");

      // B listens again: the event is gone for it, so its sockets are closed and the page reads again.
      go.open();
      await waitFor(async () => ((await listening()) === 1 ? true : undefined), 'B to listen again');
      await waitFor(() => (disconnected !== undefined || heardBalance() ? true : undefined), 'the socket to be closed or to hear the balance', 10_000);
      // Closed by the server (the web client connects again and re-reads), not by a failure of its own.
      if (!heardBalance()) expect(disconnected).toBe('io server disconnect');
    } finally {
      go.open();
      restore();
      socket?.disconnect();
      await spy.end().catch(() => {});
      await b.close();
      await dbB.close();
      await a.close();
    }
  });
});
