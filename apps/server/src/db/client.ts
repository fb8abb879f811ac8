import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { type ChangeFeed, channelOf, pgliteChangeFeed, postgresChangeFeed } from './changes';
import { PGlitePool } from './pglite-pool';
import type { Database } from './schema';
import { privateFolder } from '../lib/data-dir-lock';

export type DbKind = 'pglite' | 'postgres';
/** A client checked out of the PostgreSQL pool (the realtime adapter's LISTEN connection). */
export type PgPoolClient = pg.PoolClient;

export interface Db {
  kysely: Kysely<Database>;
  kind: DbKind;
  /** The node-postgres pool when on a real server (the realtime adapter needs it). */
  pgPool?: pg.Pool;
  /** The pool's connections for the metrics; null on PGlite (one session, no pool). */
  poolStats(): { total: number; idle: number; waiting: number; max: number } | null;
  /**
   * This process's LISTEN on one of FEED_CHANNELS (decision record 0026): one feed for them all, started
   * on first use and shared by every caller, so a read on it is a barrier for every channel.
   */
  changes(channel: (typeof FEED_CHANNELS)[number]): ChangeFeed;
  close(): Promise<void>;
}

/**
 * The channels of the change feed: a user's sessions or row (migration 0024), and what a player's price data
 * shows of their codes and variants (0047).
 */
export const FEED_CHANNELS = ['session_changed', 'price_data_changed'] as const;

const INT8_OID = 20;
const MAX_NAMED = 500;
const names = new Map<string, string>();

/**
 * Hands Kysely the pool with every parameterised statement named after a hash of its text, so
 * node-postgres prepares it once per connection and PostgreSQL plans it once instead of on every
 * call (the money paths run the same few statements over and over). Kysely's
 * statements are parameterised, so their texts are few; past MAX_NAMED distinct texts the rest
 * run unnamed, which bounds what each connection keeps. Statements without parameters
 * (migrations, BEGIN/COMMIT, several statements at once) keep the simple protocol.
 *
 * A prepared `SELECT *` fails with "cached plan must not change result type" once its table gains
 * or loses a column (another process migrated the database under this one). That text is then run
 * unnamed from here on, and the failed call is repeated at once when it was not inside a
 * transaction; inside one, the transaction has failed and the caller's error handling applies.
 */
function preparing(pool: pg.Pool, end: () => Promise<void>) {
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `k_${createHash('sha1').update(text).digest('base64url')}`;
      names.set(text, name);
    }
    return name || undefined;
  };
  // One wrapper per pooled client: Kysely keeps its connection objects keyed by the client.
  const wrapped = new WeakMap<pg.PoolClient, unknown>();
  return {
    async connect() {
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) {
        let inTransaction = false;
        // Set when a statement's answer never came (the pool's query_timeout): the client is ended
        // and must not go back to the pool, where the next caller would queue behind that statement.
        let lost = false;
        // A transaction that lifted the server's statement limit (migrations, the ledger audit) lifts
        // the client's query_timeout too, until it ends.
        let unlimited = false;
        const send = async (text: string, values?: unknown[]) => {
          const limit = unlimited ? { query_timeout: NO_READ_TIMEOUT } : {};
          if (!values?.length) {
            if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction = true;
            else if (/^\s*(commit|rollback)\b(?!\s+to\b)/i.test(text)) inTransaction = unlimited = false;
            else if (inTransaction && /^\s*set\s+local\s+statement_timeout\s*=\s*0\s*;?\s*$/i.test(text)) unlimited = true;
            return client.query({ text, values, ...limit });
          }
          const name = nameOf(text);
          if (!name) return client.query({ text, values, ...limit });
          try {
            return await client.query({ name, text, values, ...limit });
          } catch (err) {
            if ((err as { code?: string }).code !== '0A000' || !/cached plan/.test((err as Error).message)) throw err;
            names.set(text, '');
            if (inTransaction) throw err;
            return client.query({ text, values, ...limit });
          }
        };
        w = {
          async query(text: string, values?: unknown[]) {
            try {
              return await send(text, values);
            } catch (err) {
              if (!lost && err instanceof Error && err.message === READ_TIMEOUT) {
                lost = true;
                client.release(err);
              }
              throw err;
            }
          },
          release: () => {
            if (!lost) client.release();
          },
        };
        wrapped.set(client, w);
      }
      return w;
    },
    end,
  } as unknown as pg.Pool;
}
const toBigInt = (v: string) => BigInt(v);
/** int8 as bigint, on the pool's connections and the change feeds' reads alike. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? toBigInt : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};
/** node-postgres' error when a statement's answer did not come within query_timeout. */
const READ_TIMEOUT = 'Query read timeout';
/** The longest timer Node keeps (about 24 days): no client limit. */
const NO_READ_TIMEOUT = 2 ** 31 - 1;

/**
 * SQLSTATEs PostgreSQL refuses a connection with that no wait will change: the database named by
 * DATABASE_URL does not exist (3D000), its password is wrong (28P01), its role does not exist or
 * pg_hba.conf admits it nowhere (28000).
 */
const REFUSED = new Set(['3D000', '28P01', '28000']);

/**
 * One line for a connection refused because DATABASE_URL itself is wrong, naming the setting, the
 * server's words (which never hold the password) and the code: `DATABASE_URL: database "x" does not
 * exist (3D000)`. Null for any other error.
 */
export function databaseUrlRefusal(err: unknown): string | null {
  if (!err || typeof err !== 'object') return null;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !REFUSED.has(code)) return null;
  return `DATABASE_URL: ${typeof message === 'string' ? message : 'connection refused'} (${code})`;
}

export interface DbOptions {
  databaseUrl?: string;
  /** A folder for PGlite, or 'memory://' for a throwaway in-memory database. */
  dataDir: string;
  /** PostgreSQL only: the most connections the pool keeps (default 8, as DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** PostgreSQL only: the longest one statement may run (default 60 s); tests shorten it. */
  statementTimeoutMs?: number;
  /** PostgreSQL only: how long a session may sit in an open transaction (default 60 s). */
  idleInTransactionMs?: number;
  /** PostgreSQL only: how long the client waits for a statement's answer (default the statement limit + 5 s). */
  queryTimeoutMs?: number;
}

/** Server options of every pool connection (`-c name=value`, as libpq's `options`). */
const POOL_OPTIONS = '-c jit=off';

/**
 * DATABASE_URL read by pg's own parser (what pg does with a `connectionString`), with `extra` added to the server
 * options it carries: pg lets a connection string's fields replace the client's, so `?options=-c search_path=x` would
 * otherwise drop ours without a word. The URL itself is not rewritten: re-encoding it changed what pg read from
 * passwords, socket paths and options written the way pg's parser tolerates (diff review 19).
 */
export function connectionOf(url: string, extra: string) {
  const fields = parseConnectionString(url);
  return { ...fields, options: fields.options ? `${fields.options} ${extra}` : extra };
}

export async function createDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      max: opts.poolSize ?? 8,
      // While the database is away a checkout fails within this time instead of queueing forever
      // (the call answers 503, decision record 0020); connections are made again on demand.
      connectionTimeoutMillis: 5000,
      // TCP keep-alive, so a connection whose server vanished without a word (a network cut, a host
      // gone) is found dead by the kernel instead of waiting for an answer forever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // PostgreSQL's own limits on every session of the pool: a statement running past this is
      // cancelled (57014, answered 503 and safe to retry: its transaction rolled back), and a session
      // that sat in an open transaction this long is ended, so a process that stalls mid-transaction
      // cannot hold a player's wallet row locked. Migrations lift the statement limit for themselves.
      statement_timeout: opts.statementTimeoutMs ?? 60_000,
      idle_in_transaction_session_timeout: opts.idleInTransactionMs ?? 60_000,
      // And the client's own limit, for when the server cannot enforce one: gone without a word with
      // a statement in flight (keep-alive probes only idle connections). The client is then ended
      // (preparing() above) and the call answers 503 like any lost connection.
      query_timeout: opts.queryTimeoutMs ?? (opts.statementTimeoutMs ?? 60_000) + 5_000,
      // No JIT compilation: every statement here is short, and JIT's tens of milliseconds, spent
      // once a plan's estimated cost passes jit_above_cost (the job claim's can, with a backlog),
      // cost more than any of them saves: POOL_OPTIONS, which connectionOf adds to any `?options=` of
      // DATABASE_URL. The URL's fields come last, as they did when pg read `connectionString` itself:
      // a `?statement_timeout=` there still wins over the default above.
      types,
      ...(connectionOf(opts.databaseUrl, POOL_OPTIONS) as pg.PoolConfig),
    });
    // An idle client losing its server (a restart, a failover) must not crash the process: the
    // pool drops it and the next checkout connects again. Checked-out clients fail their query,
    // which the error handler answers with 503; the realtime adapter's LISTEN client has its own
    // listener (plugins/realtime.ts).
    pool.on('error', () => {});
    // A checked-out client (between the statements of a transaction, or the realtime adapter's
    // LISTEN client) that loses its connection emits 'error' with no query to receive it; without
    // a listener that is an uncaught exception. Its next query fails instead, and the pool drops it.
    pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    const feeds = new Map<string, ChangeFeed>();
    const url = opts.databaseUrl;
    // The pool is ended once, by whichever asks first: Kysely's destroy() ends it only when a query went through
    // Kysely (its driver starts on the first), so close() ends it itself too. An app that never queried through
    // Kysely (the realtime adapter's goodbye went through the pool) otherwise kept an idle connection open until
    // the pool's idle timeout, 10 s after close() had resolved.
    let ended: Promise<void> | undefined;
    const end = () => {
      ended ??= pool.end();
      return ended;
    };
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparing(pool, end) }) });
    return {
      kysely,
      kind: 'postgres',
      pgPool: pool,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
      changes: (channel) => feedOf(feeds, channel, () => postgresChangeFeed(url, FEED_CHANNELS, types)),
      close: async () => {
        await closeFeeds(feeds);
        await kysely.destroy();
        await end();
      },
    };
  }
  let dataDir = opts.dataDir;
  if (!dataDir.startsWith('memory://')) {
    dataDir = resolve(dataDir, 'pglite');
    privateFolder(dataDir);
  }
  const pglite = await PGlite.create(dataDir, { parsers: { [INT8_OID]: toBigInt } });
  const pglitePool = new PGlitePool(pglite);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pglitePool }) });
  const feeds = new Map<string, ChangeFeed>();
  return {
    kysely,
    kind: 'pglite',
    poolStats: () => null,
    changes: (channel) => feedOf(feeds, channel, () => pgliteChangeFeed(pglitePool, FEED_CHANNELS)),
    close: async () => {
      await closeFeeds(feeds);
      await kysely.destroy();
    },
  };
}

/** The view of `channel` on the one feed of FEED_CHANNELS (kept under ''), made on first use. */
function feedOf(feeds: Map<string, ChangeFeed>, channel: string, make: () => ChangeFeed) {
  const known = feeds.get(channel);
  if (known) return known;
  let all = feeds.get('');
  if (!all) {
    all = make();
    feeds.set('', all);
  }
  const view = channelOf(all, channel);
  feeds.set(channel, view);
  return view;
}

async function closeFeeds(feeds: Map<string, ChangeFeed>) {
  const all = feeds.get('');
  feeds.clear();
  await all?.close();
}
