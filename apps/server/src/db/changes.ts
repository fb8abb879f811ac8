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
 * A PostgreSQL channel this process LISTENs on (decision record 0026). On a real server a dedicated
 * connection (not one of the pool's), connected again after it is lost; on PGlite the one session's
 * own LISTEN, whose notifications arrive before the committing statement returns.
 */
export interface ChangeFeed {
  /** Whether LISTEN is established now. */
  readonly live: boolean;
  /** Adds a subscriber; it hears `up` at once when the feed is live. Answers the unsubscribe. */
  subscribe(handlers: ChangeHandlers): () => void;
  /**
   * Resolves when this feed has received the notification `payload` sent by the server process
   * `processId` (a connection of the pool), or at once when the feed is not live (then it cannot).
   */
  expect(processId: number, payload: string): Expectation;
  close(): Promise<void>;
}

export interface Expectation {
  done: Promise<void>;
  cancel(): void;
}

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 3000;
const RESOLVED: Expectation = { done: Promise.resolve(), cancel: () => {} };
const CHANNEL = /^[a-z_]+$/;

function hub() {
  const handlers = new Set<ChangeHandlers>();
  let live = false;
  return {
    get live() {
      return live;
    },
    handlers,
    setLive(on: boolean) {
      if (live === on) return;
      live = on;
      for (const h of handlers) on ? h.up() : h.down();
    },
    subscribe(h: ChangeHandlers) {
      handlers.add(h);
      if (live) h.up();
      return () => {
        handlers.delete(h);
      };
    },
  };
}

/** LISTEN on a dedicated node-postgres connection, connected again (250 ms, doubling to 3 s) whenever it is lost. */
export function postgresChangeFeed(connectionString: string, channel: string): ChangeFeed {
  if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
  const h = hub();
  const waiting = new Map<string, Set<() => void>>();
  let client: pg.Client | null = null;
  let closed = false;
  let delay = RECONNECT_FIRST_MS;
  let timer: NodeJS.Timeout | null = null;

  const releaseAll = () => {
    for (const set of waiting.values()) for (const resolve of set) resolve();
    waiting.clear();
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    h.setLive(false);
    // Nobody may wait for a notification this connection will never deliver.
    releaseAll();
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
    const c = new pg.Client({ connectionString, keepAlive: true });
    // A lost connection emits 'error' (no query to receive it) and then 'end'.
    c.on('error', () => {});
    c.on('end', () => lost(c));
    c.on('notification', (msg) => {
      if (msg.channel !== channel) return;
      const payload = msg.payload ?? '';
      for (const s of h.handlers) s.change(payload);
      const key = `${msg.processId}:${payload}`;
      const set = waiting.get(key);
      if (set) {
        waiting.delete(key);
        for (const resolve of set) resolve();
      }
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch {
      c.removeAllListeners('end');
      c.on('end', () => {});
      await c.end().catch(() => {});
      retry();
      return;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    delay = RECONNECT_FIRST_MS;
    h.setLive(true);
  }
  void connect();

  return {
    get live() {
      return h.live;
    },
    subscribe: h.subscribe,
    expect(processId, payload) {
      if (!h.live) return RESOLVED;
      const key = `${processId}:${payload}`;
      let resolve!: () => void;
      const done = new Promise<void>((r) => {
        resolve = r;
      });
      let set = waiting.get(key);
      if (!set) waiting.set(key, (set = new Set()));
      set.add(resolve);
      return {
        done,
        cancel() {
          set.delete(resolve);
          if (set.size === 0 && waiting.get(key) === set) waiting.delete(key);
          resolve();
        },
      };
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      h.setLive(false);
      releaseAll();
      await c?.end().catch(() => {});
    },
  };
}

/**
 * PGlite is one session in this process: its LISTEN lives as long as the database, and a
 * notification is handed to the listener while the committing statement's answer is read, before
 * that statement returns, so nobody has to wait for one.
 */
export function pgliteChangeFeed(pool: PGlitePool, channel: string): ChangeFeed {
  if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
  const h = hub();
  let unlisten: (() => Promise<void>) | null = null;
  let closed = false;
  void pool
    .listen(channel, (payload) => {
      for (const s of h.handlers) s.change(payload);
    })
    .then((stop) => {
      unlisten = stop;
      if (!closed) h.setLive(true);
    });
  return {
    get live() {
      return h.live;
    },
    subscribe: h.subscribe,
    expect: () => RESOLVED,
    async close() {
      closed = true;
      h.setLive(false);
      await unlisten?.().catch(() => {});
    },
  };
}
