import { createHash } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerOf } from '../lib/tokens';
import { createCallLimitStore } from '../modules/sessions/call-limits.service';
import type { RateLimitsQueryable } from '../modules/sessions/rate-limits.repository';
import { tooMany } from '../modules/sessions/rate-limit.service';

/** Calls a minute, before RATE_LIMIT_SCALE: per client address (many players may share one) and per bearer. */
export const CALL_LIMITS = { perIp: 600, perToken: 300, windowMs: 60_000 } as const;

const tokenKey = (token: string) => createHash('sha256').update(token).digest('base64url').slice(0, 22);

/**
 * Every /api call is counted per client address and, with a bearer, per token, in the
 * PostgreSQL-backed store every process shares; over the limit it is a Russian 429 with
 * Retry-After, before any work is done.
 */
export async function registerCallLimits(app: FastifyInstance, db: RateLimitsQueryable, scale: number) {
  const store = createCallLimitStore(db, app.log);
  await app.register(fastifyRateLimit, { global: false, store: store.Store as never, timeWindow: CALL_LIMITS.windowMs });
  const byIp = app.createRateLimit({
    keyGenerator: (req: FastifyRequest) => `call:ip:${req.ip}`,
    max: Math.max(1, Math.round(CALL_LIMITS.perIp * scale)),
  });
  const byToken = app.createRateLimit({
    keyGenerator: (req: FastifyRequest) => `call:tok:${tokenKey(bearerOf(req.headers.authorization) ?? '')}`,
    max: Math.max(1, Math.round(CALL_LIMITS.perToken * scale)),
  });
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const ip = await byIp(request);
    if (!ip.isAllowed && ip.isExceeded) throw tooMany(ip.ttlInSeconds, callsMessage(ip.ttlInSeconds));
    if (!bearerOf(request.headers.authorization)) return;
    const tok = await byToken(request);
    if (!tok.isAllowed && tok.isExceeded) throw tooMany(tok.ttlInSeconds, callsMessage(tok.ttlInSeconds));
  });
  app.addHook('onClose', async () => store.flush());
  return store;
}

const callsMessage = (s: number) => `Слишком много запросов. Повторите через ${Math.max(1, s)} с`;
