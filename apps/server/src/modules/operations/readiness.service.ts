import type { Db } from '../../db/client';
import { pingOnOwnConnection } from '../../db/ping';
import { type OperationsDb, operationsRepository as repo } from './operations.repository';

const PING_TIMEOUT_MS = 2000;
/**
 * A check's answer is reused for this long after its ping ended: /api/ready is public and not call-limited
 * (a balancer's check must never wait on the call limits' sync), so checks one after another from one
 * address would otherwise open a connection each. A balancer checks every 2 s, so it still sees a change
 * at its next check.
 */
export const READY_REUSE_MS = 1000;

export type Readiness = { ready: true } | { ready: false; status: 'unavailable' | 'draining' };

/**
 * Whether a balancer should send this process traffic: not while it drains after SIGTERM, not
 * while its database does not answer. Asked on every GET /api/ready, so it recovers by itself
 * the moment the database does.
 *
 * On PostgreSQL the ping runs on a connection of its own, made for it and closed after, never on
 * one of the pool's: a pool busy with slow calls is load, not an outage, and a ping queued behind
 * them would time out and take every process out of the balancer at once in a spike. The fresh
 * connection still fails within the 2 s when the database is down, unreachable or silent, or
 * refuses connections (53300 at its connection limit, as it then refuses this process's new ones
 * too). It costs one short connection per check, and needs the server to have a slot to spare
 * beyond the pools (max_connections above processes × DATABASE_POOL_SIZE plus a few). On
 * PGlite (one in-process session, nothing to reach) the ping goes through the pool as before.
 */
export function createReadiness({ db, pgPool }: { db: OperationsDb; pgPool?: Db['pgPool'] }) {
  const ping = pgPool ? () => pingOnOwnConnection(pgPool, PING_TIMEOUT_MS) : () => repo.ping(db);
  let draining = false;
  let inFlight: Promise<Readiness> | null = null;
  let last: { answer: Readiness; at: number } | null = null;
  async function probe(): Promise<Readiness> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database ping timed out')), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([ping(), timeout]);
      return { ready: true };
    } catch {
      return { ready: false, status: 'unavailable' };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** SIGTERM: from now on /api/ready answers 503; the process keeps serving. */
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
    /**
     * Checks that arrive while one is under way share it, and those within READY_REUSE_MS after it ended
     * take its answer: /api/ready is public, and a flood of checks would otherwise open a connection each
     * and could spend the server's spare connections. Draining is said at once.
     */
    check(): Promise<Readiness> {
      if (draining) return Promise.resolve({ ready: false, status: 'draining' });
      if (last && performance.now() - last.at < READY_REUSE_MS) return Promise.resolve(last.answer);
      inFlight ??= probe().then((answer) => {
        last = { answer, at: performance.now() };
        inFlight = null;
        return answer;
      });
      return inFlight;
    },
  };
}

export type ReadinessService = ReturnType<typeof createReadiness>;
