import { health, ready, waitText } from '@adena/contract';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { createCallLimitStore } from '../modules/sessions/call-limits.service';
import type { RateLimitsQueryable } from '../modules/sessions/rate-limits.repository';
import { tooMany } from '../modules/sessions/rate-limit.service';
import { apiPathOf } from './api-path';
import { bearerHashOf } from './auth';
import { addressKey } from '../lib/address-key';

/** Calls a minute, before RATE_LIMIT_SCALE: per client address (many players may share one) and per bearer. */
export const CALL_LIMITS = { perIp: 600, perToken: 300, windowMs: 60_000 } as const;

/**
 * The health checks, neither counted nor refused: a balancer asks /api/ready every 2 s from one address,
 * and counting it made its first check of each minute wait on a sync through the pool (a new window
 * is synced before answering), up to the pool's 5 s timeout when every slot was busy: the check failed
 * and the process was taken out of the balancer, which readiness's own connection is there to prevent.
 * Their cost needs no limit: /api/health answers from memory, and checks of /api/ready that arrive
 * together share one ping and those within a second after it take its answer (readiness.service.ts), so
 * a flood from one address opens about one connection a second. Matched on the URL as sent (its query aside), which
 * costs no allocation: an escaped form (`/%61pi/ready`) is counted like any call.
 */
const HEALTH_CHECKS: ReadonlySet<string> = new Set([ready.path, health.path]);
function isHealthCheck(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const url = request.url;
  const q = url.indexOf('?');
  return HEALTH_CHECKS.has(q < 0 ? url : url.slice(0, q));
}

/**
 * How long closing waits for the last counts to reach the shared store (one batched upsert, milliseconds on a
 * working database). Through a silent network cut the write would wait for the pool's connect timeout or the
 * statement's read timeout, past main.ts's 10 s exit deadline, as closeDb's wait is bounded there: the counts
 * not sent by then are dropped (a client may get that many more calls in the window), with a warning.
 */
export const FLUSH_ON_CLOSE_MS = 1_000;

/** The token's key in `rate_limits`: never the token itself, 128 bits of the hash the caller lookup uses too. */
const tokenKey = (tokenHash: string) => `call:tok:${tokenHash.slice(0, 32)}`;

/**
 * Every /api call but the health checks is counted per client address and, with a bearer, per token, in the
 * PostgreSQL-backed store every process shares; over the limit it is a Russian 429 with
 * Retry-After, before any work is done. Synchronous (decision record 0027): a call whose keys need
 * no sync costs two map lookups and the bearer's hash (made once per request, shared with the caller
 * lookup), no promise. Returns the check the app's
 * one onRequest hook ends with.
 */
export function callLimitsHook(
  app: FastifyInstance,
  db: RateLimitsQueryable,
  scale: number,
  opts: {
    /** Calls that are neither counted nor refused: a caller known by a secret of its own (Telegram's webhook deliveries). */
    unlimited?: (request: FastifyRequest) => boolean;
  } = {},
) {
  const unlimited = opts.unlimited ?? (() => false);
  const store = createCallLimitStore(db, app.log, CALL_LIMITS.windowMs);
  const maxIp = Math.max(1, Math.round(CALL_LIMITS.perIp * scale));
  const maxToken = Math.max(1, Math.round(CALL_LIMITS.perToken * scale));

  /** 0 when allowed, else the seconds to wait; the token is counted only when the address is allowed. */
  function check(request: FastifyRequest): number | Promise<number> {
    const bearer = bearerHashOf(request);
    const ip = store.hit(`call:ip:${addressKey(request.ip)}`, maxIp);
    if (typeof ip !== 'number') return ip.then((s) => (s || !bearer ? s : store.hit(tokenKey(bearer), maxToken)));
    if (ip || !bearer) return ip;
    return store.hit(tokenKey(bearer), maxToken);
  }

  /** Whether the counts not yet written reached the store within FLUSH_ON_CLOSE_MS. */
  const flushed = async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((r) => {
      timer = setTimeout(() => r(false), FLUSH_ON_CLOSE_MS);
    });
    const sent = await Promise.race([store.flush().then(() => true, () => true), late]);
    clearTimeout(timer);
    return sent;
  };
  // The last counts leave as closing starts, so their wait runs beside the job queue's grace (app.ts) instead of
  // after it: through a silent network cut, the stop's waits in a row came to 8 s of main.ts's 10 s (flakiness
  // audit 3). Calls still served while closing are written in onClose, once the first write got through.
  let first: Promise<boolean> | null = null;
  app.addHook('preClose', async () => {
    first = flushed();
  });
  app.addHook('onClose', async () => {
    const sent = (await (first ?? flushed())) && (await flushed());
    if (!sent) app.log.warn({ waitedMs: FLUSH_ON_CLOSE_MS }, 'call limits: the last counts did not reach the database in time; dropped');
  });
  const hook: onRequestHookHandler = (request, _reply, done) => {
    if (apiPathOf(request) === null || isHealthCheck(request) || unlimited(request)) return done();
    const verdict = check(request);
    if (typeof verdict === 'number') return verdict ? done(refused(verdict)) : done();
    verdict.then((s) => (s ? done(refused(s)) : done()), done);
  };
  return hook;
}

const refused = (s: number) => tooMany(s, `Слишком много запросов. Повторите через ${waitText(s)}`);
