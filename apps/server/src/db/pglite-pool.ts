import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { Mutex } from '../lib/mutex';

const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

function commandOf(sql: string): string {
  const m = /^\s*(?:WITH\b[\s\S]*?\)\s*)?(\w+)/i.exec(sql);
  return (m?.[1] ?? 'SELECT').toUpperCase();
}

/**
 * Presents embedded PGlite to Kysely's PostgresDialect as a pool of one connection.
 * PGlite is a single session: a transaction must own it from BEGIN to COMMIT, so every
 * checkout waits for the previous one to be released (the community dialect does not
 * support PGlite 0.5, hence this small adapter; see docs/decisions/0002).
 */
export class PGlitePool implements PostgresPool {
  readonly #mutex = new Mutex();
  constructor(readonly pg: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    const release = await this.#mutex.acquire();
    const pg = this.pg;
    let released = false;
    return {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        if (parameters.length === 0) {
          // Simple protocol, like node-postgres without values: allows several statements.
          const results = await pg.exec(sql);
          const last = results[results.length - 1];
          const rows = (last?.rows ?? []) as R[];
          return { command: commandOf(sql) as 'SELECT', rowCount: last?.affectedRows ?? rows.length, rows };
        }
        const result = await pg.query<R>(sql, parameters as unknown[]);
        const command = commandOf(sql);
        return {
          command: command as 'SELECT',
          rowCount: AFFECTING.has(command) ? (result.affectedRows ?? 0) : result.rows.length,
          rows: result.rows,
        };
      },
      release() {
        if (!released) {
          released = true;
          release();
        }
      },
    } as PostgresPoolClient;
  }

  /**
   * LISTEN on the one session, between two checkouts (inside a transaction of someone else's it
   * would be undone with it); answers the UNLISTEN. The callback runs while the committing
   * statement's answer is read (decision record 0026).
   */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    const release = await this.#mutex.acquire();
    try {
      const stop = await this.pg.listen(channel, callback);
      return async () => {
        const again = await this.#mutex.acquire();
        try {
          await stop();
        } finally {
          again();
        }
      };
    } finally {
      release();
    }
  }

  async end(): Promise<void> {
    const release = await this.#mutex.acquire();
    try {
      await this.pg.close();
    } finally {
      release();
    }
  }
}
