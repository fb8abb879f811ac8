/**
 * True when an error means the database could not be reached or dropped the connection (a restart,
 * a failover, a network cut), as opposed to an error of the statement itself. Such calls answer
 * 503 and are safe to retry: a money call carries its Idempotency-Key, so a retry of one whose
 * COMMIT did happen replays its answer.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // Socket errors of node, the PostgreSQL classes 08 (connection exception) and 57P (operator
    // intervention: shutdown, crash shutdown, cannot connect now), and 57014, a statement cancelled
    // by the pool's statement_timeout (db/client.ts): its transaction rolled back, a retry is safe.
    // So is 40P01, a deadlock PostgreSQL broke by rolling this transaction back (lock orders are
    // kept so that none should happen; should one, the caller gets 503 and retries, not a 500).
    // 57P03 (cannot connect now: the server is starting, or recovering after a crash) is in 57P0x.
    // 53300 (too many connections): the server's max_connections, or a role's or database's
    // CONNECTION LIMIT, is reached; no connection was made, so nothing ran, and it passes as
    // connections are given back (N processes × DATABASE_POOL_SIZE, the LISTEN connections and a
    // pg_dump share that limit). 25006 (read-only transaction): a write reached a server that takes
    // none, as during a failover onto a standby not yet promoted; the statement was refused and its
    // transaction rolled back. The one read-only transaction of the code (the ledger audit) writes
    // nothing, so 25006 never means a mistake of ours.
    if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/.test(code)) return true;
    if (/^(08...|57P0[1-4]|57014|40P01|53300|25006)$/.test(code)) return true;
  }
  if (typeof message === 'string') {
    // node-postgres' own words for a connection it lost or could not make in time.
    return /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client was closed|Cannot use a pool after calling end|Query read timeout/i.test(
      message,
    );
  }
  return false;
}

/**
 * A start's database steps (migrations, the seed, the first admin), tried again while the database
 * cannot be reached: a compose start before PostgreSQL accepts connections, or a restart at that
 * moment. Waits 1, 2, 4… up to 15 s between tries, without end (a supervisor would only restart the
 * process to do the same). Any other failure stops the start.
 */
export async function untilReachable(step: () => Promise<void>, say: (line: string) => void, maxWaitMs = 15_000): Promise<void> {
  for (let wait = 1_000; ; wait = Math.min(wait * 2, maxWaitMs)) {
    try {
      await step();
      return;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      const code = (err as { code?: unknown }).code;
      say(`database unreachable (${typeof code === 'string' ? code : (err as Error).message}); trying again in ${wait / 1000} s`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
