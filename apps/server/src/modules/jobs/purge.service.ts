import type { Jobs } from './jobs.service';
import type { JobsDb } from './jobs.repository';
import { purgeRepository as repo } from './purge.repository';

export const PURGE_KIND = 'purge.expired';
const PURGE_EVERY_MS = 10 * 60_000;

export interface PurgeCounts {
  tokens: number;
  authFlows: number;
  oauthStates: number;
  telegramLinks: number;
  idempotencyKeys: number;
  rateWindows: number;
  failedJobs: number;
  secondFactorChallenges: number;
  knownBrowsers: number;
  logs: number;
}

/**
 * `dbNow`, tests only: stands in for the database's clock. Without it every age is measured from the
 * database's `now()`, which every process sharing the database agrees on (the jobs' `failed_at` is
 * written on it too), not from the clock of whichever process the purge job happens to run on.
 */
export function createPurge(deps: { db: JobsDb; dbNow?: () => Date }) {
  return {
    /** Deletes every expired session, one-time code flow, idempotency key and the like, and old log rows. */
    async run(): Promise<PurgeCounts> {
      const at = deps.dbNow?.() ?? (await repo.databaseNow(deps.db));
      return {
        tokens: await repo.expiredTokens(deps.db, at),
        authFlows: await repo.expiredAuthFlows(deps.db, at),
        oauthStates: await repo.expiredOauthStates(deps.db, at),
        telegramLinks: await repo.expiredTelegramLinks(deps.db, at),
        idempotencyKeys: await repo.oldIdempotencyKeys(deps.db, at),
        rateWindows: await repo.oldRateWindows(deps.db, at),
        failedJobs: await repo.oldFailedJobs(deps.db, at),
        secondFactorChallenges: await repo.expiredSecondFactorChallenges(deps.db, at),
        knownBrowsers: await repo.forgottenBrowsers(deps.db, at),
        logs: await repo.oldLogs(deps.db, at),
      };
    },
  };
}

/** The purge as a recurring job: every ten minutes, on one process of those sharing the database. */
export function schedulePurge(jobs: Jobs, purge: ReturnType<typeof createPurge>) {
  jobs.every(PURGE_KIND, PURGE_EVERY_MS, async () => {
    await purge.run();
  });
}
