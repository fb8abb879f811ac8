import pg from 'pg';

/**
 * One query on a connection made for it alone, with the pool's own settings (address, credentials,
 * TLS), closed right after: whether the database takes a connection and answers, however busy the
 * pool is, and takes writes. Throws when it does not (within `timeoutMs` for the connection, and
 * again for the answer), or when its sessions are read-only: a standby during a failover answers,
 * but every money call on it would fail.
 */
export async function pingOnOwnConnection(pool: pg.Pool, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ ...pool.options, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // A connection lost between the two steps must not become an uncaught 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
    if (rows[0]?.transaction_read_only === 'on') throw new Error('the database takes no writes (a standby, or read-only)');
  } finally {
    client.end().catch(() => {});
  }
}
