// Long file: createRealtime is one closure over this process's sockets (below), with the constants and cluster
// messages it uses; the Socket.IO adapter it runs on is in realtime-adapter.ts.
import { OPERATORS_CHANNEL, OPERATORS_LEFT, type OperatorEvent, type OperatorEventName, REALTIME_REFUSALS, type RealtimeEvents, realtimeChannelFor, type SessionEndReason, SubscribeBodySchema } from '@adena/contract';
import type { FastifyInstance } from 'fastify';
import { Server } from 'socket.io';
import type { ChangeFeed } from '../db/changes';
import type { Db } from '../db/client';
import type { SessionsService } from '../modules/sessions/sessions.service';
import { type PeerAware, peerAwareAdapter } from './realtime-adapter';

export type RealtimeEventName = keyof RealtimeEvents;

export interface Realtime {
  /** Sends to the user's private channel on every process. Call only after the transaction committed. */
  publish<N extends RealtimeEventName>(userId: number, name: N, data: RealtimeEvents[N]): void;
  /** Sends to every operator's socket on `private:operators`, on every process. Only after COMMIT. */
  publishOperators(name: OperatorEventName, data: OperatorEvent): void;
  /**
   * Tells the sockets of these sessions `session_ended` and closes them, on every process. Call
   * only after the transaction that ended the sessions committed.
   */
  endSessions(sessionIds: number[], reason: SessionEndReason): void;
  /** The same for every socket of a user (a block: no session of theirs may go on). */
  endUserSessions(userId: number, reason: SessionEndReason): void;
  /** Takes every socket of the user off `private:operators`, on every process (a demotion). */
  leaveOperators(userId: number): void;
  io: Server;
  close(): Promise<void>;
}

/** The cluster message (Socket.IO's serverSideEmit) that carries a tick's events to the other processes. */
const RELAY = 'adena:relay';
interface RelayedMessage {
  channel: string;
  name: string;
  data: unknown;
}
/** The cluster message (Socket.IO's serverSideEmit) that asks every other process to end sockets. */
const END_SOCKETS = 'adena:end-sockets';
interface EndSockets {
  rooms: string[];
  reason: SessionEndReason;
}
/** Longer than any realtime token the app issues (43 characters): refused without hashing. */
const MAX_TOKEN_LENGTH = 128;
/** Failed handshakes one connection may make before it is closed. */
const MAX_FAILED_HANDSHAKES = 3;
/** Sockets one session may hold on one process (a tab each; a reconnecting tab's old socket lingers until its ping times out). */
const MAX_SOCKETS_PER_SESSION = 20;
/** Requests for the operators' channel one socket may make at once (each asks the database)... */
const MAX_OPERATOR_CHECKS = 5;
/** ...and how often one more comes back after them. */
const OPERATOR_CHECK_EVERY_MS = 60_000;
/** Reads one handshake or operators' check may make while the user keeps changing under it (createRealtime's askUntilSettled). */
const MAX_ASKS = 5;
/** The cluster message that takes a user's sockets off the operators' channel. */
const LEAVE_OPERATORS = 'adena:leave-operators';

/**
 * Socket.IO on the API's own port. A socket authenticates with a one-connection, one-minute token
 * from POST /api/ably-token, joins its user's and its session's rooms, and may subscribe only to
 * its owner's channel. With DATABASE_URL the PostgreSQL adapter relays every emit to sockets held
 * by other processes.
 */
// Long: the handshake, the operators' channel and its re-check, the relay and the ends share this process's
// sockets and their state, and their races are tested together (realtime-races.test.ts); each function is short.
export function createRealtime(
  app: FastifyInstance,
  {
    pgPool,
    sessions,
    changes,
    clock = () => new Date(),
  }: {
    pgPool: Db['pgPool'];
    sessions: Pick<SessionsService, 'takeRealtimeToken' | 'mayHearOperators' | 'liveSessions'>;
    /** PostgreSQL's `session_changed` feed (db/changes.ts): the safety net for a lost announcement. */
    changes?: Pick<ChangeFeed, 'subscribe'>;
    /** The operators' check budget's clock (tests move it). */
    clock?: () => Date;
  },
): Realtime {
  const io = new Server(app.server, { path: '/socket.io/', serveClient: false, cors: { origin: false } });
  // engine.io writes its refusals of a malformed handshake itself, from one table its server class keeps: in
  // Russian, as every answer (an unknown transport, a stale session id, a refused upgrade).
  Object.assign((io.engine.constructor as unknown as { errorMessages: Record<number, string> }).errorMessages, REALTIME_REFUSALS);
  const adapter = pgPool
    ? peerAwareAdapter(pgPool, { errorHandler: (err) => app.log.warn({ err }, 'realtime adapter'), relistened: () => resyncSockets() })
    : null;
  if (adapter) io.adapter(adapter);

  /**
   * The adapter's LISTEN connection is back after a loss (the database restarted or failed over, the probe
   * ended a silent connection): what other processes sent while it was away never reached this process's
   * sockets, which stayed connected, so their pages would keep an old balance and «pending» until they
   * reconnected for another reason. Each socket is closed, as after a deploy: the web client connects again
   * at once and reads the truth again once subscribed (apps/web/src/lib/realtime.ts). Called once the new
   * connection listens, so an event sent after that reaches the socket that comes back, and one sent
   * before is in what it reads.
   */
  function resyncSockets() {
    const sockets = io.of('/').sockets.size;
    if (sockets === 0) return;
    app.log.warn({ sockets }, 'realtime: LISTEN connection back after a loss; closing this process’s sockets so their pages read again');
    io.local.disconnectSockets(true);
  }

  /**
   * What this process heard while a handshake or an operators' check waited for the database: a session ended
   * or changed, a user taken off the operators' channel. The answer may have been read before it, and the end or
   * the leave found the socket not yet in the room it was about to join (a logout between the token's check
   * and the join left the socket connected, a demotion during the check left it on the operators' channel);
   * the re-check's "no" may predate the role given back (it took off a socket just let back in).
   * Such an answer is asked again. Noted by room (a user's, a session's), so an end elsewhere asks nobody
   * again; null is every room (LISTEN lost or back: anything may have been missed). Kept only while something
   * waits, so a quiet process holds nothing.
   */
  let heardSeq = 0;
  let heardByAll = 0;
  const heardByRoom = new Map<string, number>();
  let waiting = 0;
  const hear = (rooms: readonly string[] | null) => {
    if (waiting === 0) return;
    heardSeq++;
    if (rooms === null) heardByAll = heardSeq;
    else for (const room of rooms) heardByRoom.set(room, heardSeq);
  };
  const heardSince = (mark: number, rooms: readonly string[]) => heardByAll > mark || rooms.some((room) => (heardByRoom.get(room) ?? 0) > mark);
  /**
   * `ask` again until an answer comes with nothing heard of its rooms (`roomsOf`: the user's and the session's,
   * null for a refusal) while it was asked; `refused` when that does not happen within MAX_ASKS (a user changed
   * without pause is let in later).
   */
  async function askUntilSettled<T>(roomsOf: (answer: T) => readonly string[] | null, refused: T, ask: () => Promise<T>) {
    waiting++;
    try {
      let mark = heardSeq;
      let answer = await ask();
      for (let asked = 1, rooms = roomsOf(answer); rooms !== null && heardSince(mark, rooms); asked++, rooms = roomsOf(answer)) {
        if (asked === MAX_ASKS) return refused;
        mark = heardSeq;
        answer = await ask();
      }
      return answer;
    } finally {
      if (--waiting === 0) heardByRoom.clear();
    }
  }

  // Socket.IO's messages pass no per-call limit: the two that reach the database are bounded here.
  // A connection may try a handshake a few times (each a DELETE of the token's hash), then it is closed;
  // a token longer than any the app hands out is not even hashed.
  // A try counts as failed from its start, and a connection asks one at a time: Socket.IO starts a handshake
  // for every CONNECT packet that arrives while the last one still waits, so counting after the answer let a
  // client that did not wait send hundreds of DELETEs down one connection (review 2026-11-27).
  const failedHandshakes = new WeakMap<object, number>();
  const asking = new WeakSet<object>();
  io.use(async (socket, next) => {
    const conn = socket.conn;
    const fails = (failedHandshakes.get(conn) ?? 0) + 1;
    failedHandshakes.set(conn, fails);
    // Another CONNECT while one waits is refused unasked (and counts): the one under way goes on, unless the
    // connection has used up its tries.
    if (asking.has(conn) || fails > MAX_FAILED_HANDSHAKES) {
      next(new Error('unauthorized'));
      if (fails >= MAX_FAILED_HANDSHAKES) setImmediate(() => conn.close());
      return;
    }
    asking.add(conn);
    try {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      // The token is used up by its first read; a read again asks only whether its session still lives.
      let taken: Awaited<ReturnType<typeof sessions.takeRealtimeToken>> | undefined;
      const found =
        typeof token === 'string' && token.length <= MAX_TOKEN_LENGTH
          ? await askUntilSettled(
              (f) => (f ? [userRoom(f.userId), sessionRoom(f.sessionId)] : null),
              null,
              async () => {
                if (taken === undefined) {
                  taken = await sessions.takeRealtimeToken(token);
                  return taken;
                }
                return taken && (await sessions.liveSessions([taken.sessionId])).length > 0 ? taken : null;
              },
            )
          : null;
      asking.delete(conn);
      if (!found) {
        next(new Error('unauthorized'));
        if (fails >= MAX_FAILED_HANDSHAKES) setImmediate(() => conn.close());
        return;
      }
      failedHandshakes.set(conn, (failedHandshakes.get(conn) ?? 1) - 1);
      // One session's sockets on this process are bounded: each holds memory and every recheck of the session walks them.
      if ((io.of('/').adapter.rooms.get(sessionRoom(found.sessionId))?.size ?? 0) >= MAX_SOCKETS_PER_SESSION) {
        next(new Error('too many connections'));
        return;
      }
      socket.data.userId = found.userId;
      socket.data.sessionId = found.sessionId;
      socket.data.admin = found.admin;
      void socket.join([userRoom(found.userId), sessionRoom(found.sessionId)]);
      next();
    } catch (err) {
      asking.delete(conn);
      app.log.error({ err }, 'realtime auth failed');
      next(new Error('unavailable'));
    }
  });

  io.on('connection', (socket) => {
    socket.on('subscribe', (body: unknown, ack?: (answer: unknown) => void) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      const parsed = SubscribeBodySchema.safeParse(body);
      const own = realtimeChannelFor(socket.data.userId as number);
      // The operators' channel (decision record 0023): the session's user as of now must be an admin
      // (with TOTP on when ADMIN_REQUIRE_2FA), not as of the handshake.
      if (parsed.success && parsed.data.channel === OPERATORS_CHANNEL) {
        // The web app asks once per connection, and after a refusal again within a minute; a socket asking in a
        // loop would hold the pool. So MAX_OPERATOR_CHECKS at once, then one more each OPERATOR_CHECK_EVERY_MS:
        // a socket refused while its operator was away from the role (or the database from the process) gets the
        // channel on a later try, not only after a reconnection.
        const at = clock().getTime();
        const budget = (socket.data.operatorChecks as { left: number; at: number } | undefined) ?? { left: MAX_OPERATOR_CHECKS, at };
        const left = Math.min(MAX_OPERATOR_CHECKS, budget.left + Math.max(0, at - budget.at) / OPERATOR_CHECK_EVERY_MS);
        socket.data.operatorChecks = { left: left >= 1 ? left - 1 : left, at };
        if (left < 1) {
          reply({ error: 'Нет доступа к этому каналу' });
          return;
        }
        const sessionId = socket.data.sessionId as number;
        const rooms = [userRoom(socket.data.userId as number), sessionRoom(sessionId)];
        askUntilSettled(
          (ok) => (ok ? rooms : null),
          false,
          () => sessions.mayHearOperators(sessionId, app.adminRequiresTwoFactor !== false),
        ).then(
          (ok) => {
            if (ok && socket.connected) void socket.join(OPERATORS_CHANNEL);
            reply(ok ? { ok: true } : { error: 'Нет доступа к этому каналу' });
          },
          (err) => {
            app.log.warn({ err }, 'realtime: operators check failed');
            reply({ error: 'Нет доступа к этому каналу' });
          },
        );
        return;
      }
      if (!parsed.success || parsed.data.channel !== own) {
        reply({ error: 'Нет доступа к этому каналу' });
        return;
      }
      void socket.join(own);
      reply({ ok: true });
    });
  });

  /**
   * Ends this process's sockets in the rooms: `session_ended`, then the connection closes. Both are
   * written to each socket here, in that order, so the message always arrives first (engine.io
   * flushes what is buffered before it closes the transport), with no timer (decision record 0018).
   */
  function endLocal({ rooms, reason }: EndSockets) {
    hear(rooms);
    const ids = new Set<string>();
    for (const room of rooms) for (const id of io.sockets.adapter.rooms.get(room) ?? []) ids.add(id);
    for (const id of ids) {
      const socket = io.sockets.sockets.get(id);
      if (!socket) continue;
      const channel = realtimeChannelFor(socket.data.userId as number);
      socket.emit('message', { channel, name: 'session_ended', data: { reason } });
      socket.disconnect(true);
    }
  }
  // Another process ended sessions: it ended its own sockets, we end ours.
  io.on(END_SOCKETS, (msg: EndSockets) => endLocal(msg));
  /**
   * Takes the socket off the operators' channel and says so on it (`operators_left`): the client would otherwise
   * go on showing a live queue that hears nothing, and never ask again (the web app asks again after a refusal).
   */
  function leaveOperatorsChannel(socket: { leave(room: string): unknown; emit(event: string, message: unknown): unknown }) {
    void socket.leave(OPERATORS_CHANNEL);
    socket.emit('message', { channel: OPERATORS_CHANNEL, name: OPERATORS_LEFT, data: {} });
  }
  const leaveLocal = ({ userId }: { userId: number }) => {
    hear([userRoom(userId)]);
    const operators = io.sockets.adapter.rooms.get(OPERATORS_CHANNEL);
    for (const id of [...(io.sockets.adapter.rooms.get(userRoom(userId)) ?? [])]) {
      const socket = operators?.has(id) ? io.sockets.sockets.get(id) : undefined;
      if (socket) leaveOperatorsChannel(socket);
    }
  };
  io.on(LEAVE_OPERATORS, leaveLocal);

  /**
   * The safety net behind the announced ends: an end's announcement to other processes is one
   * NOTIFY sent after its commit, lost if a process's adapter is reconnecting or the announcing
   * process dies first. The session's own change is PostgreSQL's `session_changed` NOTIFY, sent by
   * the commit itself; when it names a user with sockets here (or LISTEN comes back, when any may
   * have been missed), their sessions are read again a little later — the announcement, with its
   * exact reason, normally comes first — and a socket whose session is gone is ended as revoked; one
   * on the operators' channel whose user may no longer hear it leaves the channel.
   */
  const RECHECK_AFTER_MS = 2_000;
  const recheckUsers = new Set<number>();
  let recheckAll = false;
  let recheckTimer: NodeJS.Timeout | null = null;
  function scheduleRecheck(userId: number | null) {
    hear(userId === null ? null : [userRoom(userId)]);
    if (userId === null) recheckAll = true;
    else if (io.sockets.adapter.rooms.has(userRoom(userId))) recheckUsers.add(userId);
    else return;
    recheckTimer ??= setTimeout(() => void recheck(), RECHECK_AFTER_MS);
    recheckTimer.unref?.();
  }
  /**
   * A re-check that could not read (the database away a moment) is made again later: the news that asked for it has
   * been heard, and nothing else would ask (diff review 22: one failed read left every socket after it unchecked).
   * In RECHECK_AFTER_MS the first time, then every RECHECK_FAILING_MS while the reads fail (an outage); logged once
   * until a re-check reads again.
   */
  const RECHECK_FAILING_MS = 30_000;
  let recheckFailing = false;
  let closed = false;
  function recheckFailed(err: unknown, userIds: Iterable<number>, all: boolean) {
    // A re-check under way when the process closes fails on the closed pool: nothing to ask again then.
    if (closed) return;
    if (!recheckFailing) app.log.warn({ err }, 'realtime: could not check the sockets’ sessions; asking again later');
    const wait = recheckFailing ? RECHECK_FAILING_MS : RECHECK_AFTER_MS;
    recheckFailing = true;
    if (all) recheckAll = true;
    for (const id of userIds) recheckUsers.add(id);
    recheckTimer ??= setTimeout(() => void recheck(), wait);
    recheckTimer.unref?.();
  }
  async function recheck() {
    recheckTimer = null;
    const all = recheckAll;
    const users = [...recheckUsers];
    recheckAll = false;
    recheckUsers.clear();
    const sockets = [...io.sockets.sockets.values()].filter((socket) => all || users.includes(socket.data.userId as number));
    const ids = [...new Set(sockets.map((socket) => socket.data.sessionId as number))];
    let live: Set<number>;
    try {
      live = new Set(await sessions.liveSessions(ids));
    } catch (err) {
      recheckFailed(err, users, all);
      return;
    }
    const gone = ids.filter((id) => !live.has(id));
    if (gone.length > 0) endLocal({ rooms: gone.map(sessionRoom), reason: 'revoked' });
    // A demotion, a block or TOTP turned off keeps the session but not the operators' channel; its
    // announcement (leaveOperators) can be lost like an end's, so the channel is asked again here.
    const operators = io.sockets.adapter.rooms.get(OPERATORS_CHANNEL);
    let failed = false;
    for (const socket of sockets) {
      const sessionId = socket.data.sessionId as number;
      const userId = socket.data.userId as number;
      if (!socket.connected || !operators?.has(socket.id) || !live.has(sessionId)) continue;
      // A "no" read before the user was given the role back must not take off the socket its own check
      // just let back in: one that overlapped news of the user is asked again. One still unsettled after
      // MAX_ASKS takes the socket off, as a handshake is refused: the client subscribes again by itself.
      const rooms = [userRoom(userId), sessionRoom(sessionId)];
      let may: boolean;
      try {
        may = await askUntilSettled(
          (ok) => (ok ? null : rooms),
          false,
          () => sessions.mayHearOperators(sessionId, app.adminRequiresTwoFactor !== false),
        );
      } catch (err) {
        // The other sockets are still checked; this one's user is asked again later.
        recheckFailed(err, [userId], false);
        failed = true;
        continue;
      }
      if (may) continue;
      // Still there after the check (a demotion's own announcement may have taken it off meanwhile).
      if (io.sockets.adapter.rooms.get(OPERATORS_CHANNEL)?.has(socket.id)) leaveOperatorsChannel(socket);
    }
    if (!failed) recheckFailing = false;
  }
  const unfollow = changes?.subscribe({
    change: (payload) => scheduleRecheck(Number(payload)),
    down: () => hear(null),
    up: () => scheduleRecheck(null),
  });

  function endEverywhere(msg: EndSockets) {
    endLocal(msg);
    if (!pgPool) return;
    try {
      io.serverSideEmit(END_SOCKETS, msg);
    } catch (err) {
      app.log.warn({ err }, 'realtime: could not relay a session end');
    }
  }

  /**
   * An event goes to this process's sockets on its channel at once, and to the other processes with
   * every other event raised in the same synchronous run (a decision's balance and status) as one cluster
   * message: one NOTIFY, one wake-up of each listener, the events in the order they were raised
   * (decision record 0029). Nothing is relayed while no peer can hear it (decision record 0014).
   */
  let pending: RelayedMessage[] | null = null;
  /**
   * To this process's sockets on the event's channel. Socket.IO encodes a packet before it looks for
   * the room's sockets, so an event for a channel nobody here holds (most players have no page open;
   * the operators' feed with no operator on this process) is dropped before that cost.
   */
  function emitLocal(message: RelayedMessage) {
    if (io.of('/').adapter.rooms.get(message.channel)?.size) io.local.to(message.channel).emit('message', message);
  }
  function send(message: RelayedMessage) {
    emitLocal(message);
    if (!pgPool) return;
    if (pending) {
      pending.push(message);
      return;
    }
    pending = [message];
    queueMicrotask(flush);
  }
  async function flush() {
    const batch = pending ?? [];
    pending = null;
    try {
      if (await (io.of('/').adapter as unknown as PeerAware).mayHavePeers()) io.serverSideEmit(RELAY, batch);
    } catch (err) {
      app.log.warn({ err }, 'realtime: could not relay events');
    }
  }
  // Another process's events: to our sockets on their channels (a user's channel holds only the owner's sockets).
  io.on(RELAY, (batch: RelayedMessage[]) => {
    for (const message of batch) emitLocal(message);
  });

  return {
    io,
    publish(userId, name, data) {
      send({ channel: realtimeChannelFor(userId), name, data });
    },
    publishOperators(name, data) {
      send({ channel: OPERATORS_CHANNEL, name, data });
    },
    endSessions(sessionIds, reason) {
      if (sessionIds.length > 0) endEverywhere({ rooms: sessionIds.map(sessionRoom), reason });
    },
    endUserSessions(userId, reason) {
      endEverywhere({ rooms: [userRoom(userId)], reason });
    },
    leaveOperators(userId) {
      leaveLocal({ userId });
      if (!pgPool) return;
      try {
        io.serverSideEmit(LEAVE_OPERATORS, { userId });
      } catch (err) {
        app.log.warn({ err }, 'realtime: could not relay leaving the operators');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        unfollow?.();
        closed = true;
        if (recheckTimer) clearTimeout(recheckTimer);
        void io.close(() => {
          // After the adapter's own close: a LISTEN connection it was still setting up goes back too.
          adapter?.close();
          resolve();
        });
      }),
  };
}

// Every socket sits in its user's and its session's room from the handshake on, whether or not it subscribed.
const userRoom = (userId: number) => `user:${userId}`;
const sessionRoom = (sessionId: number) => `session:${sessionId}`;
