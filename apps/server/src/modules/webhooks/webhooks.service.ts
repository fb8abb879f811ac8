import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { WebhookEvent } from '@adena/contract';
import type { Trx } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import type { RateLimiter } from '../sessions/rate-limit.service';
import type { JobQueue } from '../jobs/jobs.service';
import type { Caller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { dnsResolve, hostOf, isPrivateAddress, refusedAtSetup, type Resolve } from './address-guard';
import { WEBHOOK_JOB, WEBHOOK_MAX_AGE_MS } from './webhook-delivery';
import { toDelivery, toWebhook } from './webhooks.mapper';
import { type Q, type WebhooksDb, webhooksRepository as repo } from './webhooks.repository';

/** What a service that reports events needs: `record` inside the transaction of the change. */
export interface WebhookOutbox {
  record(trx: Trx, userId: number, type: Exclude<WebhookEvent, 'ping'>, data: unknown): Promise<void>;
}
export const noWebhooks: WebhookOutbox = { record: async () => {} };

/**
 * A recovery (password reset, support's TOTP rescue, a block of a stolen account), in its transaction:
 * an endpoint a thief may have set keeps receiving the player's events (order numbers, decisions) and
 * its secret signs events for the thief, so it goes, with the deliveries still waiting. The seller sets
 * it again from the profile. Whether there was one.
 */
export const removeWebhookOf = (q: Trx, userId: number) => repo.remove(q, userId);

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks' form; the bytes are the HMAC key). */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const WEBHOOK_LOG = 50;

const noEndpoint = () => new AppError('NOT_FOUND', { message: 'Вебхук не настроен' });
const privateRefused = () =>
  new AppError('VALIDATION', { errors: { url: ['Адрес во внутренней сети или на этом компьютере не подходит: нужен адрес, доступный из интернета'] } });

export interface WebhooksDeps {
  db: WebhooksDb;
  jobs: Pick<JobQueue, 'enqueue' | 'wake'>;
  allowPrivate: boolean;
  clock?: () => Date;
  /** Caps «Отправить тест» per user (WEBHOOK_TESTS): each one holds a job worker up to 10 s against a silent receiver. */
  limiter?: Pick<RateLimiter, 'count'>;
  testsPerWindow?: number;
  /** The DNS lookup of a name given as the endpoint (the hosts file, then the DNS client off the thread pool, by default; a fake in tests). */
  resolve?: Resolve;
}

/** How long saving an endpoint waits for its name to resolve before leaving the check to delivery. */
const SAVE_LOOKUP_MS = 3_000;

/** Test pings a user may send in ten minutes, before RATE_LIMIT_SCALE. */
export const WEBHOOK_TESTS = { limit: 10, windowMs: 10 * 60_000 } as const;

/**
 * A seller's webhook: one endpoint per user with the events it wants, its secret, the outbox of
 * events (written in the transaction of the change they report, with the job that delivers them)
 * and the delivery log.
 */
// Long: a factory of short functions, one per call on a seller's webhook, its outbox and its log.
export function createWebhooksService({
  db,
  jobs,
  allowPrivate,
  clock = () => new Date(),
  limiter,
  testsPerWindow = WEBHOOK_TESTS.limit,
  resolve = dnsResolve(SAVE_LOOKUP_MS),
}: WebhooksDeps) {
  /**
   * A name that resolves to a private address now (`localhost.`, `127.0.0.1.nip.io`) is refused when
   * saved, so the seller learns it at once. A name that does not resolve (yet) is accepted: each
   * delivery resolves it again and refuses a private answer then, which also covers a name whose
   * answer changes after it was saved.
   */
  async function resolvesPrivate(url: URL) {
    const host = hostOf(url);
    if (isIP(host)) return false; // refusedAtSetup has judged it
    const addresses = await Promise.race([
      resolve(host).catch(() => []),
      new Promise<[]>((r) => setTimeout(() => r([]), SAVE_LOOKUP_MS).unref()),
    ]);
    return addresses.some((a) => isPrivateAddress(a.address));
  }

  async function enqueue(q: Q, userId: number, type: WebhookEvent, data: unknown) {
    const at = clock();
    const body = JSON.stringify({ type, timestamp: at.toISOString(), data });
    const row = await repo.insertDelivery(q, { userId, type, body, createdAt: at });
    // The queue gives up a little after the last attempt the delivery itself allows.
    // One seller's deliveries take one worker at a time: a receiver that never answers holds up only
    // its own seller's events, not everyone's.
    await jobs.enqueue(q, WEBHOOK_JOB, { id: String(row.id) }, { maxAttempts: 1000, maxAgeMs: WEBHOOK_MAX_AGE_MS + 60_000, group: `webhook:${userId}` });
    return row;
  }

  return {
    async record(trx: Trx, userId: number, type: Exclude<WebhookEvent, 'ping'>, data: unknown) {
      if (await repo.wants(trx, userId, type)) await enqueue(trx, userId, type, data);
    },

    async get(caller: Caller) {
      const w = await repo.endpoint(db, caller.user.id);
      return w ? toWebhook(w) : null;
    },

    /** Sets the endpoint; the secret is made with a new endpoint and kept on later changes (rotate replaces it). */
    async put(caller: Caller, input: { url: string; events: WebhookEvent[] }) {
      if (!allowPrivate) {
        const url = new URL(input.url);
        if (refusedAtSetup(url) || (await resolvesPrivate(url))) throw privateRefused();
      }
      // Saved only while the session is still live: a recovery (reset, block, TOTP rescue) that ran during
      // the DNS check above has removed the endpoints and ended the sessions; this one must not outlive it.
      const w = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        return repo.upsert(trx, caller.user.id, { url: input.url, events: input.events, secret: newWebhookSecret() });
      });
      return { url: w.url, events: w.events as WebhookEvent[], secret: w.secret };
    },

    async rotate(caller: Caller) {
      const secret = newWebhookSecret();
      // As put: only while the session is still live, checked under the user's row in the write's transaction (a
      // reset, a block or a logout the call waited for has ended it: 401, and no new secret for it).
      const set = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        return repo.setSecret(trx, caller.user.id, secret);
      });
      if (!set) throw noEndpoint();
      return { secret };
    },

    async remove(caller: Caller) {
      // One transaction: the removal and the failing of what waited for the endpoint are seen together.
      // As put: the session checked under the user's row first (a thief's removal that waited must not land after it).
      const removed = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        return repo.remove(trx, caller.user.id);
      });
      if (!removed) throw noEndpoint();
      return { success: true as const };
    },

    /** «Отправить тест»: a `ping` to the endpoint, whatever events it chose. */
    async test(caller: Caller) {
      await limiter?.count(`webhook:test:${caller.user.id}`, { limit: testsPerWindow, windowMs: WEBHOOK_TESTS.windowMs });
      // The delivery and its job in one transaction: a failed job insert leaves no delivery that nothing sends.
      const row = await db.transaction().execute(async (trx) => {
        if (!(await repo.endpoint(trx, caller.user.id))) throw noEndpoint();
        return enqueue(trx, caller.user.id, 'ping', { message: 'Проверка вебхука' });
      });
      // Enqueued inside a transaction, which wakes nobody: the ping goes now, not at the workers' next poll.
      jobs.wake();
      return toDelivery(row);
    },

    async deliveries(caller: Caller) {
      return (await repo.latest(db, caller.user.id, WEBHOOK_LOG)).map(toDelivery);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
