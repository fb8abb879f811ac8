// The Socket.IO PostgreSQL adapter as the app runs it (decision records 0014 and 0029): broadcasts stay in
// the process while no peer can hear them, and the one LISTEN connection is watched and probed.
import { createAdapter } from '@socket.io/postgres-adapter';
import type { Db, PgPoolClient } from '../db/client';

type Pool = NonNullable<Db['pgPool']>;
/** What the adapter adds: whether a broadcast must go through PostgreSQL for a peer that may hear it. */
export interface PeerAware {
  mayHavePeers(): Promise<boolean>;
}
type AdapterOptions = NonNullable<Parameters<typeof createAdapter>[1]>;
/** socket.io-adapter's default: a peer silent for this long is forgotten. */
const HEARTBEAT_TIMEOUT_MS = 10_000;
/**
 * How long after a peer was last heard broadcasts still go through PostgreSQL though the adapter forgot it:
 * a live process whose pool is full for a while (its heartbeats wait for a free connection and give up)
 * still holds sockets that must hear this one's events. A peer that closed says so and is not waited for.
 */
const PEER_GRACE_MS = 60_000;
/** socket.io-adapter's MessageType.ADAPTER_CLOSE: a peer's adapter closing (its process stopping). */
const ADAPTER_CLOSE = 13;
/** How often the LISTEN connection is asked an empty query, and how long its answer may take. */
const PROBE_EVERY_MS = 5_000;
const PROBE_BOUND_MS = 3_000;
/**
 * The probe: only a comment, which PostgreSQL answers as an empty query, and which names the
 * connection in `pg_stat_activity.query` as its LISTEN did (tests and operators look for either).
 */
export const LISTEN_PROBE = '/* realtime adapter: LISTEN connection alive? */';

/**
 * The PostgreSQL adapter (@socket.io/postgres-adapter, pinned in package.json) NOTIFYs every
 * broadcast so that other processes reach their sockets; a process without a peer would pay a
 * database round trip per event for nobody (decision record 0014). Each peer sends a heartbeat at
 * least every `heartbeatInterval` and is forgotten after `heartbeatTimeout` of silence, and the
 * adapter's public `serverCount()` counts the peers it has heard. So a broadcast stays in this
 * process when no peer is known and the adapter has been listening for longer than that timeout
 * since its LISTEN connection last (re)connected, long enough to have heard every live peer; while
 * it is not listening, or before, every broadcast is relayed. Heartbeats, disconnects and every
 * other cluster message are untouched.
 *
 * Built on public interfaces only: the options are ours, `serverCount()` and `broadcast()` are the
 * adapter's public methods, and the LISTEN connection is seen through the pool handed to the
 * adapter, whose `connect()` it calls for that one long-lived client (its queries go through
 * `pool.query`); the client's `end` event says the connection is gone. `mayHavePeers()` is that
 * decision for the app's own relay (`createRealtime`'s batches). `now` is the clock of that
 * one decision (a test's own clock; the adapter's heartbeats keep real time). `relistened` is
 * called when the LISTEN connection listens again after a loss (`oneListener`).
 */
export function peerAwareAdapter(
  pool: Pool,
  { now = Date.now, relistened, ...opts }: AdapterOptions & { now?: () => number; relistened?: () => void } = {},
) {
  const heartbeatTimeout = opts.heartbeatTimeout ?? HEARTBEAT_TIMEOUT_MS;
  let listeningSince: number | null = null;
  const watched = oneListener(pool, {
    connected: () => {
      listeningSince = now();
    },
    ended: () => {
      listeningSince = null;
    },
    relistened,
    errorHandler: opts.errorHandler,
  });
  const factory = createAdapter(watched, { ...opts, heartbeatTimeout });
  // biome-ignore lint/complexity/useArrowFunction: Socket.IO calls the adapter factory with `new`.
  const perNamespace = function (nsp: unknown) {
    const adapter = factory(nsp) as ReturnType<typeof factory> & PeerAware;
    // When this adapter last knew of a peer, on this clock (its own list forgets a peer after heartbeatTimeout
    // of silence); a peer's goodbye (ADAPTER_CLOSE) that leaves none ends the grace at once.
    let peersLastKnown: number | null = null;
    const onMessage = adapter.onMessage.bind(adapter);
    adapter.onMessage = (message, offset) => {
      const handled = onMessage(message, offset);
      void adapter.serverCount().then((servers) => {
        if (servers > 1) peersLastKnown = now();
        else if (message.type === ADAPTER_CLOSE) peersLastKnown = null;
      });
      return handled;
    };
    adapter.mayHavePeers = async () => {
      if ((await adapter.serverCount()) > 1) {
        peersLastKnown = now();
        return true;
      }
      if (peersLastKnown !== null && now() - peersLastKnown < PEER_GRACE_MS) return true;
      return !(listeningSince !== null && now() - listeningSince > heartbeatTimeout);
    };
    const relay = adapter.broadcast.bind(adapter);
    adapter.broadcast = async (packet, options) => {
      if (options.flags?.local) return relay(packet, options);
      return relay(packet, (await adapter.mayHavePeers()) ? options : { ...options, flags: { ...options.flags, local: true } });
    };
    return adapter;
  };
  // For after io.close(): a LISTEN connection the adapter was still setting up goes back to the pool (oneListener).
  return Object.assign(perNamespace, { close: () => watched.close() });
}

/**
 * The pool as the adapter sees it, for the one long-lived client it checks out to LISTEN on (its
 * other queries go through `pool.query`). The adapter's reconnection can run twice for one loss:
 * when the connection drops during its LISTEN, both the failed query and the client's `end` schedule
 * one (@socket.io/postgres-adapter 0.5.0, util.js). Two clients would then listen, each relayed
 * message would reach the sockets twice, and the older client would never go back to the pool (a
 * slot lost at every such restart of the database). So a new checkout ends the client handed out
 * before it, after taking the adapter's listeners off it: one LISTEN connection at a time. When the
 * client it ends was still running its LISTEN, that failure makes the adapter schedule one more
 * reconnection, which ends the then-live client a second or two later: a gap like any reconnection's,
 * and it settles there.
 *
 * While no connection listens, what other processes NOTIFY is lost for this one. So `relistened` is
 * called once a client other than the first has run its first LISTEN (the adapter's reconnection after
 * a loss, a second one after a replacement): the app closes its sockets then, and their pages read again.
 *
 * The client is checked out for good, so the pool's idle listener does not cover it: without one of
 * its own, the database restarting would crash the process. On `end` the adapter reconnects (about
 * 1–3 s later); the dead client is handed back to the pool as broken so that it frees its slot.
 *
 * `close()`, called after the adapter's own close: the adapter hands back only a client whose LISTEN
 * has finished. One it was still connecting or LISTENing with (a reconnection under way at close) it
 * would keep checked out for good, and the pool's end, so the app's database close, would wait
 * forever. So from close() on, the client not handed back is ended, as is any a pending checkout
 * brings, and `connect()` answers with a promise that never settles: a failure would make the adapter
 * try again every two seconds, against an ended pool.
 */
// Long: the checkout, the probe, the watch and the close of one connection share its state; each function is short.
export function oneListener(
  pool: Pool,
  hooks: { connected(): void; ended(): void; relistened?(): void; errorHandler?: (err: Error) => void },
  { probeEveryMs = PROBE_EVERY_MS, probeBoundMs = PROBE_BOUND_MS } = {},
): Pool & { close(): void } {
  let live: PgPoolClient | null = null;
  let closed = false;
  /** Whether a client was handed out before: a later one follows a loss or a replacement. */
  let handedOut = false;
  const never = new Promise<never>(() => {});
  const CLOSED = 'the realtime adapter closed';
  /**
   * A LISTEN connection only receives, so one cut without a word (a network partition, a failover
   * behind an address that stays up) looks connected until TCP keep-alive gives up, about 11 minutes
   * on Linux's defaults: events from other processes stop, and after the adapter's heartbeat timeout
   * this process even stops relaying its own. An empty query every few seconds finds it: one left
   * unanswered past the bound ends the client (node-postgres destroys the socket of a client with a
   * query in flight), whose `end` makes the adapter connect again. A health check of this connection,
   * not background work: nothing else is done here.
   */
  function probe(client: PgPoolClient) {
    let inFlight = false;
    const timer = setInterval(() => {
      if (live !== client) {
        clearInterval(timer);
        return;
      }
      if (inFlight) return;
      inFlight = true;
      const bound = setTimeout(() => void client.end().catch(() => {}), probeBoundMs);
      client
        .query(LISTEN_PROBE)
        .catch(() => {})
        .finally(() => {
          clearTimeout(bound);
          inFlight = false;
        });
    }, probeEveryMs);
    timer.unref();
    // Released (the adapter's close hands it back to the pool, taking every `end` listener off it
    // first): never probe, let alone end, a client the pool may give to someone else.
    const release = client.release.bind(client);
    client.release = (err?: Error | boolean) => {
      clearInterval(timer);
      // Handed back whole, it is no longer ours to replace; released broken, its `end` says so.
      if (!err && live === client) live = null;
      return release(err);
    };
  }
  /**
   * A client after the first: `relistened` once its first LISTEN has succeeded while it is still the
   * live one (the adapter LISTENs once per namespace; the first is enough to say the gap is over).
   */
  function watchListen(client: PgPoolClient) {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let told = false;
    client.query = ((...args: unknown[]) => {
      const result = query(...args);
      if (!told && typeof args[0] === 'string' && args[0].startsWith('LISTEN') && result instanceof Promise) {
        void result.then(
          () => {
            if (told || live !== client) return;
            told = true;
            hooks.relistened?.();
          },
          () => {},
        );
      }
      return result;
    }) as typeof client.query;
  }
  function close() {
    closed = true;
    const client = live;
    live = null;
    if (!client) return;
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    try {
      client.release(new Error(CLOSED));
    } catch {
      // Already released.
    }
  }
  return new Proxy(pool as Pool & { close(): void }, {
    get(target, prop) {
      if (prop === 'close') return close;
      if (prop === 'connect') {
        return async () => {
          if (closed) return never;
          let client: PgPoolClient;
          try {
            client = await target.connect();
          } catch (err) {
            if (closed) return never;
            throw err;
          }
          if (closed) {
            client.release(new Error(CLOSED));
            return never;
          }
          const previous = live;
          live = client;
          if (previous) {
            previous.removeAllListeners('notification');
            previous.removeAllListeners('end');
            try {
              previous.release(new Error('replaced by a newer LISTEN connection'));
            } catch {
              // Already released.
            }
          }
          hooks.connected();
          if (handedOut) watchListen(client);
          handedOut = true;
          probe(client);
          client.on('error', (err) => hooks.errorHandler?.(err));
          client.once('end', () => {
            if (live === client) {
              live = null;
              hooks.ended();
            }
            try {
              client.release(new Error('LISTEN connection ended'));
            } catch {
              // Already released by the adapter's close().
            }
          });
          return client;
        };
      }
      if (prop === 'query') {
        // @socket.io/postgres-adapter puts a large event's attachment id (bigserial) into JSON, and this pool
        // reads int8 as BigInt, which JSON cannot carry: every event batch over 8 000 bytes failed before its
        // NOTIFY, silently (review 2026-11-27). Ids come back as strings here, for the adapter only.
        return async (...args: unknown[]) => {
          const result = (await (target.query as (...a: unknown[]) => Promise<{ rows?: Record<string, unknown>[] }>)(...args)) ?? {};
          for (const row of result.rows ?? []) if (typeof row.id === 'bigint') row.id = String(row.id);
          return result;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
