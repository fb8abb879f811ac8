import { createHash } from 'node:crypto';
import pg from 'pg';
import type { PGlitePool } from './pglite-pool';

/** What a subscriber of a change feed hears: a notification's payload, and the feed going down or up. */
export interface ChangeHandlers {
  change(payload: string): void;
  /** LISTEN is lost: notifications may be missed from now on until `up`. */
  down(): void;
  /** LISTEN is (re-)established: notifications from now on arrive. */
  up(): void;
}

/**
 * PostgreSQL channels this process LISTENs on (decision record 0026). On a real server one dedicated
 * connection (not one of the pool's) for all of them, connected again after it is lost, so its barrier
 * and reads come after every notification of every channel committed before them; on PGlite the one
 * session's own LISTEN, whose notifications arrive before the committing statement returns.
 */
export interface ChangeFeed {
  /** Whether LISTEN is established now. */
  readonly live: boolean;
  /**
   * Adds a subscriber of one of the feed's channels (its first when not named): it hears that channel's
   * notifications, and `up` at once when the feed is live. Answers the unsubscribe.
   */
  subscribe(handlers: ChangeHandlers, channel?: string): () => void;
  /**
   * A read barrier: true once every notification committed before this call has been handed to
   * the subscribers; false when that cannot be known (not live, the connection failing or slower
   * than SYNC_BOUND_MS). On PostgreSQL a round trip on the LISTEN connection that starts after the
   * call (the server sends a listener every pending notification before it answers); concurrent
   * callers share round trips.
   */
  sync(): Promise<boolean>;
  /**
   * A read that is its own barrier: sent on the LISTEN connection after the call, so its answer, like
   * `sync`'s, comes after every notification committed before the call has been handed over, and one
   * round trip both confirms cached callers and reads their rows. Null when that cannot be relied on
   * (not live, failed, slower than SYNC_BOUND_MS) and on PGlite, whose one session is the pool's too:
   * the caller then takes its usual way (`sync`, then the pool).
   */
  read<R>(query: { sql: string; parameters: readonly unknown[] }): Promise<R[] | null>;
  close(): Promise<void>;
}

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 3000;
/** A barrier slower than this counts as failed (the caller reads the database) and the connection is made again. */
const SYNC_BOUND_MS = 2000;
/** `read`'s limits on the LISTEN connection: waiting for a lock, and running at all. */
const READ_LOCK_MS = 100;
const READ_STATEMENT_MS = 1000;
/** How long a goodbye may wait for the server to close its side before the socket is destroyed. */
const END_BOUND_MS = 1000;
const YES = Promise.resolve(true);
const NO = Promise.resolve(false);
const CHANNEL = /^[a-z_]+$/;

function hub(channels: string | readonly string[]) {
  const names: readonly string[] = typeof channels === 'string' ? [channels] : channels;
  if (names.length === 0 || !names.every((c) => CHANNEL.test(c))) throw new Error(`bad channel names ${names.join(', ')}`);
  const handlers = new Map<string, Set<ChangeHandlers>>(names.map((c) => [c, new Set()]));
  let live = false;
  return {
    channels: names,
    get live() {
      return live;
    },
    /** A notification on `channel`, to its subscribers. */
    heard(channel: string, payload: string) {
      for (const s of handlers.get(channel) ?? []) s.change(payload);
    },
    setLive(on: boolean) {
      if (live === on) return;
      live = on;
      for (const set of handlers.values()) for (const h of set) on ? h.up() : h.down();
    },
    subscribe(h: ChangeHandlers, channel = names[0]!) {
      const set = handlers.get(channel);
      if (!set) throw new Error(`the feed does not listen on ${channel}`);
      set.add(h);
      if (live) h.up();
      return () => {
        set.delete(h);
      };
    },
  };
}

/** The feed as one of its channels': `subscribe` hears that channel; the barrier and reads are the feed's. */
export function channelOf(feed: ChangeFeed, channel: string): ChangeFeed {
  return {
    get live() {
      return feed.live;
    },
    subscribe: (handlers, other = channel) => feed.subscribe(handlers, other),
    sync: () => feed.sync(),
    read: (query) => feed.read(query),
    close: () => feed.close(),
  };
}

/**
 * Ends a client gracefully, or, when the server has not closed its side within END_BOUND_MS, by
 * destroying the socket: through a network cut without a reset the goodbye is never answered, and a
 * graceful end alone would wait as long as the socket stays open.
 */
function endPromptly(c: pg.Client): Promise<void> {
  const timer = setTimeout(() => c.connection.stream.destroy(), END_BOUND_MS);
  return c
    .end()
    .catch(() => {})
    .finally(() => clearTimeout(timer));
}

/**
 * LISTEN on a dedicated node-postgres connection, connected again (250 ms, doubling to 3 s) whenever it is lost.
 * `types` parses `read`'s answers as the pool's are (bigint for int8).
 */
// Long: the connection's life (connect, loss, retry), its barrier and its reads share one client; each function is short.
export function postgresChangeFeed(connectionString: string, channels: string | readonly string[], types?: pg.CustomTypesConfig): ChangeFeed {
  const h = hub(channels);
  let client: pg.Client | null = null;
  let closed = false;
  let delay = RECONNECT_FIRST_MS;
  let timer: NodeJS.Timeout | null = null;

  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    h.setLive(false);
    retry();
  };
  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    delay = Math.min(delay * 2, RECONNECT_MAX_MS);
  };
  async function connect() {
    // As the pool's connections (db/client.ts): a connect to a host that drops packets gives up after
    // 5 s instead of the kernel's minutes, and a silently cut connection is noticed by TCP keep-alive
    // probes from 10 s of quiet, not the system's default two hours.
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 5000, keepAlive: true, keepAliveInitialDelayMillis: 10_000, types });
    // A lost connection emits 'error' (no query to receive it) and then 'end'.
    c.on('error', () => {});
    c.on('end', () => lost(c));
    c.on('notification', (msg) => h.heard(msg.channel, msg.payload ?? ''));
    try {
      await c.connect();
      // `read`'s statements share this connection with every request's barrier, so none of them may wait long:
      // one queued behind a table lock (a migration's ALTER TABLE, VACUUM FULL) gives up after 100 ms and any
      // other after a second, well inside SYNC_BOUND_MS, so the connection is not torn down (its backend would
      // stay stuck on the lock while a new one took its place) and the request reads its own way instead
      // (diff review 17). No JIT, as on the pool's connections. Set here, not as the client's `options`: a
      // DATABASE_URL with `?options=` of its own would replace those without a word (diff review 18).
      await c.query(`SET lock_timeout = ${READ_LOCK_MS}; SET statement_timeout = ${READ_STATEMENT_MS}; SET jit = off`);
      await c.query(h.channels.map((channel) => `LISTEN ${channel}`).join('; '));
    } catch {
      c.removeAllListeners('end');
      c.on('end', () => {});
      await c.end().catch(() => {});
      retry();
      return;
    }
    if (closed) {
      await endPromptly(c);
      return;
    }
    client = c;
    delay = RECONNECT_FIRST_MS;
    h.setLive(true);
  }
  void connect();

  /** Each connection's last statement asked (settled either way): the next waits for it. */
  const turns = new WeakMap<pg.Client, Promise<void>>();
  /** The round trip sent and not answered yet, and the one that follows it, which new callers join. */
  let sent: Promise<boolean> | null = null;
  let next: Promise<boolean> | null = null;
  /**
   * An empty query on the LISTEN connection: notifications signalled before it are read before its
   * answer (the backend sends pending notifications before every ReadyForQuery). Empty rather than
   * `SELECT 1`: PostgreSQL answers it without parsing or planning anything.
   */
  const roundTrip = (): Promise<boolean> => bounded((c) => c.query('').then(() => true)).then((ok) => ok === true);
  /**
   * A statement on the LISTEN connection, its answer or null: not live, failed, or not answered within
   * SYNC_BOUND_MS, after which a connection this slow (perhaps half-open) is made again, the cache being
   * off meanwhile. An answer that comes after the connection was replaced or LISTEN lost is null too.
   */
  function bounded<T>(run: (c: pg.Client) => Promise<T>): Promise<T | null> {
    const c = client;
    if (!c || !h.live) return Promise.resolve(null);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<null>((resolve) => {
      timer = setTimeout(() => {
        void c.end().catch(() => {});
        resolve(null);
      }, SYNC_BOUND_MS);
    });
    // One statement at a time on the connection, in the order asked (the barrier's, the reads'): node-postgres
    // queued them itself, but that is deprecated and goes in pg 9. The wire is the same: it sent each only after
    // the last one's answer.
    const mine = (turns.get(c) ?? Promise.resolve()).then(() => run(c));
    turns.set(
      c,
      mine.then(
        () => {},
        () => {},
      ),
    );
    const answered = mine.then(
      (v) => (client === c && h.live ? v : null),
      () => null,
    );
    return Promise.race([answered, bound]).finally(() => clearTimeout(timer));
  }
  /**
   * Statement names by text: `read`'s few statements are parsed and planned once per connection. Past 50
   * texts, and for a text whose prepared statement no longer fits its table, statements run unnamed.
   */
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined && names.size < 50) {
      name = `f_${createHash('sha1').update(text).digest('base64url')}`;
      names.set(text, name);
    }
    return name || undefined;
  };

  return {
    get live() {
      return h.live;
    },
    subscribe: h.subscribe,
    sync() {
      if (!h.live) return NO;
      // A trip covers the callers that arrived before it was sent. One is on the wire at a time (the
      // connection answers in order anyway): a caller arriving while one is out joins the next, sent
      // the moment that one is answered, so under load each trip answers every request that came
      // during the last, and a request waits at most two round trips; an idle process sends at once.
      if (next) return next;
      const send = () => {
        const trip = roundTrip().finally(() => {
          if (sent === trip) sent = null;
        });
        sent = trip;
        return trip;
      };
      if (!sent) return send();
      next = sent.then(() => {
        next = null;
        return send();
      });
      return next;
    },
    read<R>(query: { sql: string; parameters: readonly unknown[] }) {
      return bounded((c) =>
        c.query<R & pg.QueryResultRow>({ name: nameOf(query.sql), text: query.sql, values: [...query.parameters] }).then(
          (r) => r.rows as R[],
          (err: { code?: string; message?: string }) => {
            // A prepared statement whose table changed under it keeps failing: that text runs unnamed from now on.
            if (err?.code === '0A000' && /cached plan/.test(err.message ?? '')) names.set(query.sql, '');
            throw err;
          },
        ),
      );
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      h.setLive(false);
      if (c) await endPromptly(c);
    },
  };
}

/**
 * PGlite is one session in this process: its LISTEN lives as long as the database, and a
 * notification is handed to the listener while the committing statement's answer is read, before
 * that statement returns, so the barrier has nothing to wait for.
 */
export function pgliteChangeFeed(pool: PGlitePool, channels: string | readonly string[]): ChangeFeed {
  const h = hub(channels);
  let unlisten: Array<() => Promise<void>> = [];
  let closed = false;
  void Promise.all(h.channels.map((channel) => pool.listen(channel, (payload) => h.heard(channel, payload)))).then((stops) => {
    unlisten = stops;
    if (!closed) h.setLive(true);
  });
  return {
    get live() {
      return h.live;
    },
    subscribe: h.subscribe,
    // The one session hands a notification over while the committing statement's answer is read.
    sync: () => (h.live ? YES : NO),
    read: () => Promise.resolve(null),
    async close() {
      closed = true;
      h.setLive(false);
      await Promise.all(unlisten.map((stop) => stop().catch(() => {})));
    },
  };
}
