import { type OperationsDb, operationsRepository as repo } from './operations.repository';

const PING_TIMEOUT_MS = 2000;

export type Readiness = { ready: true } | { ready: false; status: 'unavailable' | 'draining' };

/**
 * Whether a balancer should send this process traffic: not while it drains after SIGTERM, not
 * while its database does not answer. Asked on every GET /api/ready, so it recovers by itself
 * the moment the database does.
 */
export function createReadiness({ db }: { db: OperationsDb }) {
  let draining = false;
  return {
    /** SIGTERM: from now on /api/ready answers 503; the process keeps serving. */
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
    async check(): Promise<Readiness> {
      if (draining) return { ready: false, status: 'draining' };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('database ping timed out')), PING_TIMEOUT_MS);
      });
      try {
        await Promise.race([repo.ping(db), timeout]);
        return { ready: true };
      } catch {
        return { ready: false, status: 'unavailable' };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export type ReadinessService = ReturnType<typeof createReadiness>;
