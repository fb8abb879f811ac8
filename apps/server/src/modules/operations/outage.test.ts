import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { realtimeChannelFor } from '@adena/contract';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { testConfig } from '../../../test/harness';
import { type PgCluster, startPgCluster } from '../../../test/pg-cluster';
import { buildApp } from '../../app';
import { createDb, type Db } from '../../db/client';
import { migrate } from '../../db/migrate';
import { auditLedger } from '../ledger/ledger.service';
import { seedDemoServers } from '../system/seed';

const KK = 1_000_000;
const PLAYERS = 6;
/** Each player's withdrawals are paced so the load lasts through every phase below, however fast the machine; at most this many. */
const MAX_WITHDRAWALS_EACH = 900; // below START_BALANCE in kk
const PACE_MS = 30;
const START_BALANCE = 1000n * BigInt(KK);

type Node = { app: FastifyInstance; db: Db; url: string };

/** An app "process" of its own (own pool, own Socket.IO with the PostgreSQL adapter) on the shared cluster. */
async function startNode(url: string, dataDir: string): Promise<Node> {
  const db = await createDb({ databaseUrl: url, dataDir: '', poolSize: 8 });
  // The load below runs for as long as the outages last: well past the per-address call limit at its real scale.
  const app = await buildApp(testConfig({ DATA_DIR: dataDir, RATE_LIMIT_SCALE: '1000' }), db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, db, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
};
const readyStatus = (n: Node) => fetch(`${n.url}/api/ready`).then((r) => r.status);

// A cluster of its own: restarting the shared test cluster would cut every other test file.
describe('PostgreSQL restarting under load, two app processes on it', () => {
  let cluster: PgCluster;
  let nodes: Node[];
  let dataDir: string;
  let admin: Awaited<ReturnType<typeof createUser>>;
  let serverId: number;
  let setupDb: Db;
  let socket: Socket | undefined;

  beforeAll(async () => {
    cluster = await startPgCluster();
    dataDir = mkdtempSync(join(tmpdir(), 'adena-outage-'));
    setupDb = await createDb({ databaseUrl: cluster.url, dataDir: '' });
    await migrate(setupDb.kysely);
    await seedDemoServers(setupDb.kysely);
    serverId = await firstServerId(setupDb.kysely);
    admin = await createUser(setupDb.kysely, { admin: true });
    nodes = [await startNode(cluster.url, dataDir), await startNode(cluster.url, dataDir)];
  }, 120_000);
  afterAll(async () => {
    socket?.disconnect();
    for (const n of nodes ?? []) {
      await n.app.close();
      await n.db.close();
    }
    await setupDb?.close();
    cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 while it is away, loses and doubles no acknowledged withdrawal, and recovers by itself, realtime included', async () => {
    const players = [];
    for (let i = 0; i < PLAYERS; i++) {
      const p = await createUser(setupDb.kysely);
      const w = await createWallet(setupDb.kysely, p.id, serverId, `Hero${i}`);
      await fund(setupDb.kysely, w, START_BALANCE);
      players.push(p);
    }

    // A player's socket on node 0; operators act on node 1, so each event crosses the adapter.
    const watcher = players[0]!;
    const events: Array<{ name: string; data: { balance?: number } }> = [];
    /** Why node 0 closed the watcher's socket, if it did. */
    const closedBy: string[] = [];
    /** The watcher's socket on node 0, subscribed, as the web client opens it (a fresh token each time). */
    const connectWatcher = async () => {
      const token = (await (await fetch(`${nodes[0]!.url}/api/ably-token`, { method: 'POST', headers: { ...watcher.auth, 'content-type': 'application/json' }, body: '{}' })).json()) as { token: string };
      const sock = connectClient(nodes[0]!.url, { path: '/socket.io/', auth: { token: token.token }, transports: ['websocket'], reconnection: false });
      socket = sock;
      sock.on('message', (m: { name: string; data: { balance?: number } }) => events.push(m));
      sock.on('disconnect', (reason) => closedBy.push(reason));
      await new Promise<void>((r) => sock.once('connect', () => r()));
      expect(await sock.emitWithAck('subscribe', { channel: realtimeChannelFor(watcher.id) })).toEqual({ ok: true });
      return sock;
    };
    await connectWatcher();
    /** A deposit of the watcher completed through node 1 reaches the socket on node 0 (retried while the LISTEN reconnects). */
    const eventCrossesNodes = async () => {
      await until('a realtime event across the nodes', async () => {
        // Closed by node 0 (its LISTEN back after a loss, maybe a second time): connected again, as the web client does.
        if (!socket?.connected) await connectWatcher();
        const before = events.length;
        const dep = await fetch(`${nodes[1]!.url}/api/up_balance_user/`, {
          method: 'POST',
          headers: { ...watcher.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ gamesserver_id: serverId, amount: KK, currency_type: 1 }),
        });
        if (dep.status !== 200) return false;
        const id = ((await dep.json()) as { success: { id: number } }).success.id;
        const done = await fetch(`${nodes[1]!.url}/api/admin/requests/${id}/complete`, { method: 'POST', headers: { ...admin.auth, 'content-type': 'application/json' }, body: '{}' });
        if (done.status !== 200) return false;
        for (let i = 0; i < 40 && events.length === before; i++) await sleep(50);
        return events.slice(before).some((e) => e.name === 'balance');
      });
    };
    await eventCrossesNodes();

    // Load: each player withdraws 1kk again and again with a fresh Idempotency-Key per withdrawal,
    // alternating nodes, until the outages are over; a 503 or a cut connection is retried with the
    // same key until answered.
    const acknowledged = new Map<number, Map<string, number>>(); // player → key → request id
    const unavailable = { count: 0 };
    let stop = false;
    const load = players.map(async (p, pi) => {
      const mine = new Map<string, number>();
      acknowledged.set(p.id, mine);
      let turn = pi;
      for (let i = 0; i < MAX_WITHDRAWALS_EACH && !stop; i++) {
        if (i > 0) await sleep(PACE_MS);
        const key = `outage-${p.id}-${i}`;
        for (let attempt = 0; ; attempt++) {
          if (attempt > 600) throw new Error(`withdrawal ${key} never answered`);
          const node = nodes[turn++ % 2]!;
          const res = await fetch(`${node.url}/api/down_balance_user/`, {
            method: 'POST',
            headers: { ...p.auth, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify({ gamesserver_id: serverId, amount: KK, currency_type: 1 }),
          }).catch(() => null);
          if (res?.status === 200) {
            const id = ((await res.json()) as { success: { id: number } }).success.id;
            const seen = mine.get(key);
            // A retry of an acknowledged key replays the same request.
            if (seen !== undefined) expect(id).toBe(seen);
            mine.set(key, id);
            break;
          }
          if (res) {
            expect(res.status).toBe(503);
            expect(((await res.json()) as { message: string }).message).toBe('Сервис временно недоступен. Повторите попытку через минуту');
            unavailable.count += 1;
          }
          await sleep(50);
        }
      }
    });

    const acked = () => [...acknowledged.values()].reduce((n, m) => n + m.size, 0);
    await until('withdrawals under way', async () => acked() >= 20);

    // The database goes away: both processes stay up and say so; then it comes back.
    await cluster.halt();
    await until('both nodes not ready', async () => (await Promise.all(nodes.map(readyStatus))).every((s) => s === 503));
    const ready = await fetch(`${nodes[0]!.url}/api/ready`);
    expect(await ready.json()).toMatchObject({ status: 'unavailable' });
    await sleep(300);
    await cluster.start();
    await until('both nodes ready again', async () => (await Promise.all(nodes.map(readyStatus))).every((s) => s === 200));

    // And once more as an operator does it, without waiting in between: pg_ctl restart -m fast.
    const ackedBeforeRestart = acked();
    await until('more withdrawals', async () => acked() >= ackedBeforeRestart + 10);
    await cluster.restart();
    await until('both nodes ready after the restart', async () => (await Promise.all(nodes.map(readyStatus))).every((s) => s === 200));

    const ackedAfterRestart = acked();
    await until('withdrawals after the restart', async () => acked() >= ackedAfterRestart + 10);
    stop = true;
    await Promise.all(load);
    expect(unavailable.count).toBeGreaterThan(0); // the outage was felt, and answered 503

    // Every acknowledged withdrawal is held exactly once, and nothing else was.
    for (const p of players) {
      const mine = acknowledged.get(p.id)!;
      // Every withdrawal a player started was answered in the end (its loop retries until it is).
      expect(mine.size).toBeGreaterThan(0);
      expect(mine.size).toBeLessThan(MAX_WITHDRAWALS_EACH);
      const rows = await setupDb.kysely.selectFrom('balance_requests').select(['id', 'amount']).where('user_id', '=', p.id).where('type', '=', 'output').execute();
      expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([...mine.values()].sort((a, b) => a - b));
      const w = await setupDb.kysely.selectFrom('wallets').select('balance').where('user_id', '=', p.id).executeTakeFirstOrThrow();
      // The watcher's completed deposits (the realtime probes) are its only credits.
      const credits = await setupDb.kysely.selectFrom('balance_requests').select('amount').where('user_id', '=', p.id).where('type', '=', 'input').where('status', '=', 'completed').execute();
      const deposited = credits.reduce((sum, r) => sum + BigInt(r.amount), 0n);
      expect(BigInt(w.balance)).toBe(START_BALANCE - BigInt(mine.size * KK) + deposited);
    }
    expect(await auditLedger(setupDb.kysely)).toMatchObject({ ok: true, problems: [] });

    // Node 0 closed its sockets once its LISTEN connection was back (what node 1 sent in the gap never reached them);
    // the web client connects again at once and reads again, and so does this one. Realtime works across the nodes.
    await until('node 0 to close its sockets once it listens again', async () => closedBy.includes('io server disconnect'));
    await eventCrossesNodes();
    socket?.disconnect();
  }, 180_000);
});
