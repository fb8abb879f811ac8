import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TWO_FACTOR_MESSAGES } from '@adena/contract';
import { AppError } from '../lib/app-error';
import { bearerOf, hashToken } from '../lib/tokens';
import { browserHashOf } from './browser';
import type { Caller, Client, SessionCaller } from '../modules/sessions/caller';
import type { SessionsService } from '../modules/sessions/sessions.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** ADMIN_REQUIRE_2FA: admin calls refuse an admin without TOTP on. */
    adminRequiresTwoFactor: boolean;
    proveAdminSession: (caller: SessionCaller, header: string | string[] | undefined) => Promise<boolean>;
  }
  interface FastifyRequest {
    /** The signed-in caller behind the bearer, looked up lazily at most once per request. */
    caller(): Promise<SessionCaller | null>;
    /**
     * The caller with a read of theirs in the same round trip when the session is cached (`read` must go
     * through the change feed: SessionsService.cachedCallerWith); otherwise the usual lookup, and the read's
     * value undefined for the route to read its own way. Sets what `caller()` answers.
     */
    callerWith<T>(read: (userId: number) => Promise<T | undefined>): Promise<{ caller: SessionCaller | null; value: T | undefined }>;
  }
}

/** Decorates every request with `caller()`, found through the sessions service. */
export function registerAuth(
  app: FastifyInstance,
  sessions: Pick<SessionsService, 'callerOf' | 'cachedCallerWith'>,
  opts: {
    adminRequiresTwoFactor?: boolean;
    /** The two-factor module's check that an operator's session has shown the second factor (403 otherwise). */
    proveAdminSession?: (caller: SessionCaller, header: string | string[] | undefined) => Promise<boolean>;
  } = {},
) {
  app.decorate('adminRequiresTwoFactor', opts.adminRequiresTwoFactor ?? true);
  app.decorate('proveAdminSession', opts.proveAdminSession ?? (async () => false));
  app.decorateRequest('caller', function (this: FastifyRequest) {
    const req = this as FastifyRequest & { _caller?: Promise<SessionCaller | null> };
    req._caller ??= sessions.callerOf(bearerHashOf(req), clientOf(req));
    return req._caller;
  });
  app.decorateRequest('callerWith', function <T>(this: FastifyRequest, read: (userId: number) => Promise<T | undefined>) {
    const req = this as FastifyRequest & { _caller?: Promise<SessionCaller | null> };
    if (req._caller) return req._caller.then((caller) => ({ caller, value: undefined }));
    const fast = sessions.cachedCallerWith(bearerHashOf(req), clientOf(req), read);
    const caller = fast.then((f) => f?.caller ?? sessions.callerOf(bearerHashOf(req), clientOf(req)));
    req._caller = caller;
    return Promise.all([fast, caller]).then(([f, c]) => ({ caller: c, value: f?.value }));
  });
}

/** `requireSignedIn` with a read of the caller's made in the same round trip when it can be (`request.callerWith`). */
export async function requireSignedInWith<T>(request: FastifyRequest, read: (userId: number) => Promise<T | undefined>) {
  const { caller, value } = await request.callerWith(read);
  if (!caller) throw new AppError('UNAUTHENTICATED');
  return { caller, value };
}

/**
 * The SHA-256 of the request's bearer token (what `tokens.token_hash` holds), or undefined without
 * one: hashed once per request, whoever asks first (the call limits, the caller lookup, a money
 * call's statement).
 */
export function bearerHashOf(request: FastifyRequest): string | undefined {
  const req = request as FastifyRequest & { _bearerHash?: string | null };
  if (req._bearerHash === undefined) {
    const token = bearerOf(request.headers.authorization);
    req._bearerHash = token ? hashToken(token) : null;
  }
  return req._bearerHash ?? undefined;
}

/** Anyone making a call: what an anonymous call's service function receives. */
export const clientOf = (request: FastifyRequest): Client => ({
  ip: request.ip,
  userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
  browser: browserHashOf(request),
});

/** The signed-in caller; 401 without a live access token. */
export async function requireSignedIn(request: FastifyRequest): Promise<SessionCaller> {
  const caller = await request.caller();
  if (!caller) throw new AppError('UNAUTHENTICATED');
  return caller;
}

/** Requests whose X-Two-Factor-Code requireSignedInAdmin already used up (a code is good once). */
const steppedUpNow = new WeakSet<FastifyRequest>();

/** Whether this request's code was already taken by requireSignedInAdmin: it is then this request's step-up. */
export const gaveCodeThisRequest = (request: FastifyRequest) => steppedUpNow.has(request);

/**
 * A signed-in admin; 401 without a live access token, 403 for anyone else, 403 with
 * `two_factor_setup_required` to an admin without TOTP on, and 403 with `two_factor_required` to a
 * session that never showed the second factor (unless ADMIN_REQUIRE_2FA=false).
 */
export async function requireSignedInAdmin(request: FastifyRequest): Promise<SessionCaller> {
  const caller = await requireSignedIn(request);
  if (!caller.user.admin) throw new AppError('FORBIDDEN');
  if (request.server.adminRequiresTwoFactor && !caller.user.totp_secret) {
    throw new AppError('FORBIDDEN', { message: TWO_FACTOR_MESSAGES.setupRequired, body: { two_factor_setup_required: true } });
  }
  // A session that never showed the second factor (an operator's Telegram sign-in) is asked for it once.
  if (request.server.adminRequiresTwoFactor && (await request.server.proveAdminSession(caller, request.headers['x-two-factor-code']))) {
    steppedUpNow.add(request);
  }
  return caller;
}

/**
 * The bearer of a call that authenticates inside its own database statement (`caller_id` in
 * db/functions/sessions.sql): the SHA-256 of the token, to be checked there, and the usual lookup for the
 * paths that need the caller first (a 401 that must come before a 422); found once per request.
 * A request without a bearer is refused here at once.
 */
export interface Bearer {
  tokenHash: string;
  caller(): Promise<Caller>;
}

export function requireBearer(request: FastifyRequest): Bearer {
  const req = request as FastifyRequest & { _bearer?: Bearer };
  if (req._bearer) return req._bearer;
  const tokenHash = bearerHashOf(request);
  if (!tokenHash) throw new AppError('UNAUTHENTICATED');
  req._bearer = {
    tokenHash,
    caller: () => requireSignedIn(request),
  };
  return req._bearer;
}
