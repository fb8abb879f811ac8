import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Server } from 'socket.io';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../test/harness';
import { peerAwareAdapter } from './realtime';

// Short heartbeats so that "long enough to have heard every peer" is 300 ms here, 10 s in the app.
const HEARTBEAT = { heartbeatInterval: 100, heartbeatTimeout: 300 };
const BROADCAST = 3; // socket.io-adapter's MessageType.BROADCAST

/** One "process": its own pool, HTTP server and Socket.IO server on the shared database; every socket joins room 'r'. */
async function node(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const http: HttpServer = createServer();
  const io = new Server(http);
  io.adapter(peerAwareAdapter(pool, HEARTBEAT));
  io.on('connection', (s) => void s.join('r'));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const client: Socket = connectClient(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ['websocket'], reconnection: false });
  await new Promise<void>((r) => client.once('connect', () => r()));
  await sleep(50); // the join above runs after the client's connect
  const received: number[] = [];
  client.on('m', (v: number) => received.push(v));
  return {
    io,
    received,
    async close() {
      client.disconnect();
      await new Promise((r) => io.close(r));
      await pool.end();
    },
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await sleep(20);
  return check();
};

describe('the realtime adapter relays broadcasts only when a peer can hear them', () => {
  let db: TestDb;
  let spy: pg.Client;
  const relayed: number[] = [];
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

  it('relays while it may not have heard its peers yet, keeps events local when alone, and relays again once a peer joins', async () => {
    const a = await node(db.url!);
    const nodes = [a];
    try {
      // Just started listening: a peer could exist unheard, so the event goes through PostgreSQL.
      a.io.to('r').emit('m', 1);
      expect(await until(() => a.received.includes(1) && relayed.includes(1))).toBe(true);

      // Listening for longer than the heartbeat timeout and no peer: delivered here, no NOTIFY.
      await sleep(400);
      a.io.to('r').emit('m', 2);
      expect(await until(() => a.received.includes(2))).toBe(true);
      await sleep(200);
      expect(relayed).not.toContain(2);

      // A second process starts: its first heartbeat makes the first relay again, and its socket gets the event.
      const b = await node(db.url!);
      nodes.push(b);
      await sleep(200);
      a.io.to('r').emit('m', 3);
      expect(await until(() => a.received.includes(3) && b.received.includes(3))).toBe(true);
      expect(relayed).toContain(3);
      expect(a.received).toEqual([1, 2, 3]);
      expect(b.received).toEqual([3]);
    } finally {
      for (const n of nodes) await n.close();
    }
  });
});
