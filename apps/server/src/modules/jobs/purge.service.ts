import type { Jobs } from './jobs.service';
import type { JobsDb } from './jobs.repository';
import { WEBHOOK_MAX_AGE_MS } from '../webhooks/webhook-delivery';
import { purgeRepository as repo } from './purge.repository';

export const PURGE_KIND = 'purge.expired';
const PURGE_EVERY_MS = 10 * 60_000;
/** A webhook delivery's job is given up a minute after the delivery's three days; a day later nothing can still be sending it. */
const ABANDONED_DELIVERY_MS = WEBHOOK_MAX_AGE_MS + 24 * 60 * 60_000;

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
  abandonedDeliveries: number;
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
        abandonedDeliveries: await repo.abandonedDeliveries(deps.db, at, ABANDONED_DELIVERY_MS),
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
