import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { Mutex } from '../lib/mutex';

const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * The statement's command, as PostgreSQL's command tag names it: the first word, or after a WITH the first word
 * that follows its queries (their parentheses balanced, however nested; a lazy match stopped at the first `)`).
 */
export function commandOf(sql: string): string {
  const first = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SELECT';
  if (first !== 'WITH') return first;
  let depth = 0;
  for (let i = sql.search(/\bWITH\b/i) + 4; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === '(') depth += 1;
    else if (ch === ')') depth -= 1;
    else if (depth === 0 && /\w/.test(ch!)) {
      const word = /^\w+/.exec(sql.slice(i))![0].toUpperCase();
      if (['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'VALUES', 'TABLE'].includes(word)) return word;
      i += word.length - 1;
    }
  }
  return 'SELECT';
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
