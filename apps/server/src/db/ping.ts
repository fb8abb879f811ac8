import pg from 'pg';

/**
 * One `SELECT 1` on a connection made for it alone, with the pool's own settings (address,
 * credentials, TLS), closed right after: whether the database takes a connection and answers,
 * however busy the pool is. Throws when it does not (within `timeoutMs` for the connection, and
 * again for the answer).
 */
export async function pingOnOwnConnection(pool: pg.Pool, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ ...pool.options, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // A connection lost between the two steps must not become an uncaught 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    client.end().catch(() => {});
  }
}
