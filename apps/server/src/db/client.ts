import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGlitePool } from './pglite-pool';
import type { Database } from './schema';

export type DbKind = 'pglite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  kind: DbKind;
  /** The node-postgres pool when on a real server (the realtime adapter needs it). */
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

const INT8_OID = 20;
const toBigInt = (v: string) => BigInt(v);

export interface DbOptions {
  databaseUrl?: string;
  /** A folder for PGlite, or 'memory://' for a throwaway in-memory database. */
  dataDir: string;
  poolSize?: number;
}

export async function createDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 20,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? toBigInt : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client losing its server must not crash the process; the next checkout reconnects.
    pool.on('error', () => {});
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      kind: 'postgres',
      pgPool: pool,
      close: () => kysely.destroy(),
    };
  }
  let dataDir = opts.dataDir;
  if (!dataDir.startsWith('memory://')) {
    dataDir = resolve(dataDir, 'pglite');
    mkdirSync(dataDir, { recursive: true });
  }
  const pglite = await PGlite.create(dataDir, { parsers: { [INT8_OID]: toBigInt } });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) });
  return { kysely, kind: 'pglite', close: () => kysely.destroy() };
}
