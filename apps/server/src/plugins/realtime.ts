import { type RealtimeEvents, realtimeChannelFor, SubscribeBodySchema } from '@adena/contract';
import { createAdapter, type PostgresAdapter } from '@socket.io/postgres-adapter';
import type { FastifyInstance } from 'fastify';
import { type Namespace, Server } from 'socket.io';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { userByToken } from './auth';

export type RealtimeEventName = keyof RealtimeEvents;

export interface Realtime {
  /** Sends to the user's private channel on every process. Call only after the transaction committed. */
  publish<N extends RealtimeEventName>(userId: number, name: N, data: RealtimeEvents[N]): void;
  /** Drops the user's sockets everywhere (block, sign-out of every session). */
  disconnectUser(userId: number): void;
  io: Server;
  close(): Promise<void>;
}

/**
 * Socket.IO on the API's own port. A socket authenticates with a short-lived token from
 * POST /api/ably-token and may join only its owner's channel. With DATABASE_URL the
 * PostgreSQL adapter relays every emit to sockets held by other processes.
 */
export function createRealtime(app: FastifyInstance, _config: Config, db: Db): Realtime {
  const io = new Server(app.server, { path: '/socket.io/', serveClient: false, cors: { origin: false } });
  if (db.pgPool) io.adapter(relayOnlyToPeers(createAdapter(db.pgPool, { errorHandler: (err) => app.log.warn({ err }, 'realtime adapter') })));

  io.use(async (socket, next) => {
    try {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      const found = await userByToken(db.kysely, typeof token === 'string' ? token : undefined, 'realtime');
      if (!found) return next(new Error('unauthorized'));
      socket.data.userId = found.user.id;
      void socket.join(userRoom(found.user.id));
      next();
    } catch (err) {
      app.log.error({ err }, 'realtime auth failed');
      next(new Error('unavailable'));
    }
  });

  io.on('connection', (socket) => {
    socket.on('subscribe', (body: unknown, ack?: (answer: unknown) => void) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      const parsed = SubscribeBodySchema.safeParse(body);
      const own = realtimeChannelFor(socket.data.userId as number);
      if (!parsed.success || parsed.data.channel !== own) {
        reply({ error: 'Нет доступа к этому каналу' });
        return;
      }
      void socket.join(own);
      reply({ ok: true });
    });
  });

  return {
    io,
    publish(userId, name, data) {
      const channel = realtimeChannelFor(userId);
      io.to(channel).emit('message', { channel, name, data });
    },
    disconnectUser(userId) {
      // With the PostgreSQL adapter a broadcast reaches even this process's sockets only after its
      // NOTIFY is written, while a disconnect is applied here at once: a `session_ended` published
      // just before would be overtaken and never arrive. The tokens are already gone, so the short
      // wait lets the message through without leaving the socket any power.
      const drop = setTimeout(() => {
        try {
          io.in(userRoom(userId)).disconnectSockets(true);
        } catch {
          // The server closed meanwhile: its sockets are gone anyway.
        }
      }, DISCONNECT_AFTER_MS);
      drop.unref();
    },
    close: () =>
      new Promise<void>((resolve) => {
        void io.close(() => resolve());
      }),
  };
}

const DISCONNECT_AFTER_MS = 500;

/** What relayOnlyToPeers reads of the adapter: its peers by last heartbeat, its options, its LISTEN connection. */
interface AdapterInternals {
  nodesMap: Map<string, number>;
  _opts: { heartbeatTimeout: number };
  client: { client?: unknown };
}

/**
 * The PostgreSQL adapter NOTIFYs every broadcast so that other processes reach their sockets; a
 * process without a peer would pay a database transaction per event for nobody (a fifth of a
 * withdrawal's cost, decision record 0014). The adapter knows its peers: each one sends a
 * heartbeat at least every 5 s and is forgotten after `heartbeatTimeout` (10 s) of silence. So a
 * broadcast stays in this process when no peer is known and the adapter has been listening for
 * longer than that timeout since its LISTEN connection last (re)connected, which is long enough
 * to have heard every live peer; while it is not listening, or before, every broadcast is relayed
 * as before. Heartbeats, disconnects and every other cluster message are untouched.
 */
export function relayOnlyToPeers(factory: ReturnType<typeof createAdapter>) {
  // biome-ignore lint/complexity/useArrowFunction: Socket.IO calls the adapter factory with `new`.
  return function (nsp: Namespace): PostgresAdapter {
    const adapter = factory(nsp);
    const inside = adapter as unknown as AdapterInternals;
    const relay = adapter.broadcast.bind(adapter);
    let listener: unknown;
    let listeningSince = 0;
    /** The LISTEN connection now, noting when it (re)connected. */
    const listening = () => {
      const current = inside.client.client;
      if (current !== listener) {
        listener = current;
        listeningSince = Date.now();
      }
      return current;
    };
    const watch = setInterval(listening, 1000);
    watch.unref();
    const close = adapter.close.bind(adapter);
    adapter.close = () => {
      clearInterval(watch);
      return close();
    };
    adapter.broadcast = (packet, opts) => {
      const alone = listening() !== undefined && inside.nodesMap.size === 0 && Date.now() - listeningSince > inside._opts.heartbeatTimeout;
      return relay(packet, alone ? { ...opts, flags: { ...opts.flags, local: true } } : opts);
    };
    return adapter;
  };
}

// Every socket of a user sits in this room from the handshake on, whether or not it subscribed.
const userRoom = (userId: number) => `user:${userId}`;
