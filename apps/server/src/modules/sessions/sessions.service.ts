import type { SessionEndReason } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { hashToken, newToken } from '../../lib/tokens';
import type { Jobs } from '../jobs/jobs.service';
import type { Caller, Client, SessionCaller, SessionMethod, User } from './caller';
import type { SessionCache } from './session-cache';
import { toSession } from './sessions.mapper';
import { type Queryable, sessionsRepository as repo } from './sessions.repository';

export type { Queryable } from './sessions.repository';

const HOUR_MS = 60 * 60_000;
const NEW_PASSWORD_TOKEN_TTL_MS = 15 * 60_000;
/** A socket token serves one connection and lives a minute; the client fetches a fresh one for every (re)connect. */
const REALTIME_TOKEN_TTL_MS = 60_000;

/** Tells the sockets of ended sessions (the realtime plugin's `endSessions`); called only after COMMIT. */
export type SessionsEnded = (sessionIds: number[], reason: SessionEndReason) => void;

/** Where and how a session starts: kept with it for the owner's session list. */
export interface SessionOrigin {
  method: SessionMethod;
  client: Client;
}

export interface SessionsDeps {
  db: Queryable;
  clock?: () => Date;
  /**
   * The sweep's moment: the database's `now()` unless a test gives a clock. Sign-ins and requests judge a
   * session's end by the database's clock; a process whose clock runs ahead must not end sessions early.
   */
  dbNow?: () => Date;
  /** SESSION_IDLE_HOURS and SESSION_MAX_DAYS (config.ts). */
  idleHours?: number;
  maxDays?: number;
  ended?: SessionsEnded;
  /**
   * Callers of recent requests in memory, dropped on the database's `session_changed` notifications
   * (decision record 0026); without it every request looks its caller up.
   */
  cache?: SessionCache;
}
/** A statement download link is opened at once; it works once. */
const DOWNLOAD_TOKEN_TTL_MS = 2 * 60_000;
/** A sign-in whose account changed its password or was blocked while it was checked. */
export const SIGN_IN_OVERTAKEN = 'Пароль или доступ к аккаунту изменились, пока шёл вход. Войдите снова';

/**
 * Tokens and the caller behind them. Tokens are stored only as their SHA-256; the functions that
 * write take the handle of the caller's transaction, so a session starts in the same transaction
 * as the account change that earns it. Whatever ends sessions inside a caller's transaction
 * answers their ids, and the caller announces them with `announceEnded` after COMMIT.
 */
// Long: a factory of small functions, one per way a session starts, is used or ends.
export function createSessionsService(deps: SessionsDeps) {
  const { db } = deps;
  const now = deps.clock ?? (() => new Date());
  const idleSeconds = (deps.idleHours ?? 24) * 3600;
  const maxMs = (deps.maxDays ?? 30) * 24 * HOUR_MS;
  const announceEnded: SessionsEnded = (ids, reason) => {
    if (ids.length > 0) deps.ended?.(ids, reason);
  };

  return {
    /** The signed-in caller behind an access token's hash (`hashToken`), or null (no token, unknown, ended, blocked). */
    async callerOf(hash: string | undefined, client: Client): Promise<SessionCaller | null> {
      if (!hash) return null;
      const cache = deps.cache;
      const hit = await cache?.lookup(hash);
      if (hit) return { user: hit.user, sessionId: hit.sessionId, ...client };
      const started = cache?.begin() ?? 0;
      const found = await repo.findCallerByAccessToken(db, hash);
      if (!found) return null;
      cache?.put(hash, found, found.endsInMs, started);
      return { user: found.user, sessionId: found.sessionId, ...client };
    },

    /**
     * The caller of a cached session and a read of theirs sent on the change feed's connection, which is
     * that session's read barrier too (`SessionCache.lookupWith`); null when the session is not cached or
     * the read could not confirm it: the request then takes the usual way (`callerOf`, then its own read).
     */
    async cachedCallerWith<T>(hash: string | undefined, client: Client, read: (userId: number) => Promise<T | undefined>) {
      const found = hash ? await deps.cache?.lookupWith(hash, read) : undefined;
      if (!found) return null;
      const caller: SessionCaller = { user: found.hit.user, sessionId: found.hit.sessionId, ...client };
      return { caller, value: found.value };
    },

    /** Whether the session has shown the second factor (signed in with it, or gave a code since). */
    showedSecondFactor: (userId: number, sessionId: number) => repo.showedSecondFactor(db, userId, sessionId),

    /** Forgets every browser the user signed in from (a recovery: a thief's sign-ins must not count as the owner's). */
    forgetBrowsers: (userId: number, q: Queryable, keep: string | null = null) => repo.forgetBrowsers(q, userId, keep),

    /** Whether the user has signed in from this browser (a reset from it has a minute of its own). */
    isKnownBrowser: (userId: number, browserHash: string) => repo.isKnownBrowser(db, userId, browserHash),

    /** The user and session a socket token serves, using it up (one connection per token), or null. */
    /** The operators' channel: asked at each subscribe, so a demoted admin or one without TOTP is refused (task R1). */
    mayHearOperators: (sessionId: number, requireTotp: boolean) => repo.mayHearOperators(db, sessionId, requireTotp),
    /** Which of these sessions are still live: the realtime sockets' safety net (plugins/realtime.ts). */
    liveSessions: (sessionIds: number[]) => repo.liveSessions(db, sessionIds),

    takeRealtimeToken(token: string | undefined) {
      return token ? repo.takeRealtimeToken(db, hashToken(token)) : Promise.resolve(null);
    },

    /**
     * A new session for the user; returns its access token in clear, once. `user` is the row the
     * sign-in was checked against: when its password has changed or it was blocked since (a reset,
     * a password change or an operator's block raced this sign-in), no session starts (401), so
     * nothing signed in with the old password outlives the change.
     */
    async issueAccessToken(user: Pick<User, 'id' | 'password_hash'>, q: Queryable, origin: SessionOrigin): Promise<string> {
      const token = newToken();
      const started = await repo.insertSession(q, {
        userId: user.id,
        passwordHash: user.password_hash,
        tokenHash: hashToken(token),
        expiresAt: new Date(now().getTime() + maxMs),
        idleSeconds,
        method: origin.method,
        ip: origin.client.ip,
        userAgent: origin.client.userAgent ?? null,
      });
      if (!started) throw new AppError('UNAUTHENTICATED', { message: SIGN_IN_OVERTAKEN });
      if (origin.client.browser) await repo.rememberBrowser(q, user.id, origin.client.browser);
      return token;
    },

    /** A socket token of the caller's session (POST /api/ably-token); returns it in clear, once, with its expiry. */
    async issueRealtimeToken(caller: SessionCaller): Promise<{ token: string; expiresAt: Date }> {
      const token = newToken();
      const issuedAt = now();
      const expiresAt = new Date(issuedAt.getTime() + REALTIME_TOKEN_TTL_MS);
      // The session ended after the caller was checked (a logout in another tab): signed out, not a 500. Expired
      // socket tokens are left to the purge: deleted here, first, they locked the user's old socket tokens before
      // the insert's session row, the opposite of a logout's, a block's or a reset's order (stress round 5: deadlocks).
      if (!(await repo.insertSessionToken(db, caller.user.id, caller.sessionId, 'realtime', hashToken(token), expiresAt))) {
        throw new AppError('UNAUTHENTICATED');
      }
      return { token, expiresAt };
    },

    /**
     * A one-time token for a download link (the statement's CSV in Telegram); returns it in clear, once.
     * It belongs to the caller's session: a logout, a revoke or a password change ends it too.
     */
    async issueDownloadToken(caller: Caller): Promise<{ token: string; expiresAt: Date }> {
      const token = newToken();
      const expiresAt = new Date(now().getTime() + DOWNLOAD_TOKEN_TTL_MS);
      if (caller.sessionId === null) await repo.insertToken(db, caller.user.id, 'download', hashToken(token), expiresAt);
      else if (!(await repo.insertSessionToken(db, caller.user.id, caller.sessionId, 'download', hashToken(token), expiresAt))) {
        throw new AppError('UNAUTHENTICATED');
      }
      return { token, expiresAt };
    },

    /** Uses a download token up: its live, unblocked user, or null; of two uses at once only one finds it. */
    async userOfDownloadToken(token: string): Promise<User | null> {
      const hash = hashToken(token);
      const user = await repo.findUserByToken(db, hash, 'download');
      return user && (await repo.deleteToken(db, hash, 'download')) ? user : null;
    },

    /** Reset, step 2's answer: a short-lived token that allows one password change. */
    async issueNewPasswordToken(userId: number, q: Queryable = db): Promise<string> {
      const token = newToken();
      await repo.insertToken(q, userId, 'new_password', hashToken(token), new Date(now().getTime() + NEW_PASSWORD_TOKEN_TTL_MS));
      return token;
    },

    /** Whose live new-password token this is (null: none), without using it up or locking it. */
    newPasswordTokenUser: (token: string) => repo.liveTokenUser(db, hashToken(token), 'new_password', now()),

    /** Uses a new-password token up; returns whose it was, or null when it is not live. */
    takeNewPasswordToken: (token: string, q: Queryable = db) => repo.takeToken(q, hashToken(token), 'new_password', now()),

    /** Ends every session, socket token and pending new-password token of the user; answers the ended sessions' ids. */
    endAllSessions: (userId: number, q: Queryable = db) => repo.deleteAllTokens(q, userId),

    /**
     * Password change, inside its transaction: every other session of the caller ends, with any reset's
     * new-password token, and this one goes on under a new token (its sockets stay). Answers the token and the ended sessions' ids.
     */
    async keepOnlyThisSession(caller: SessionCaller, q: Queryable) {
      const ended = await repo.deleteOtherSessions(q, caller.user.id, caller.sessionId);
      // A reset's step 3 still to come (someone who saw its code) no longer sets a password.
      await repo.deleteTokensOfKind(q, caller.user.id, 'new_password');
      // The other browsers' sign-ins may have been a thief's: they no longer count as the owner's.
      await repo.forgetBrowsers(q, caller.user.id, caller.browser ?? null);
      const token = newToken();
      if (!(await repo.rotateSessionToken(q, caller.user.id, caller.sessionId, hashToken(token)))) throw new AppError('UNAUTHENTICATED');
      return { token, ended };
    },

    announceEnded,

    /** Ends the session of this access token only; 401 when there is none. */
    async logout(accessToken: string | undefined) {
      const tokenHash = accessToken ? hashToken(accessToken) : null;
      const id =
        tokenHash === null
          ? null
          : await repo.transaction(db, async (trx) => {
              // The user's row first, as every other ending of sessions takes it: the session's row cascades to its
              // Telegram link tokens, which a /start holding the user's row locks too (stress round 6: a deadlock).
              const userId = await repo.tokenOwner(trx, tokenHash, 'access');
              if (userId === null) return null;
              await repo.holdUser(trx, userId);
              return repo.deleteToken(trx, tokenHash, 'access');
            });
      if (id === null) throw new AppError('UNAUTHENTICATED');
      announceEnded([id], 'logout');
    },

    /** GET /api/sessions: the caller's live sessions. */
    async list(caller: SessionCaller) {
      return (await repo.listSessions(db, caller.user.id)).map((row) => toSession(row, caller.sessionId));
    },

    /** DELETE /api/sessions/{id}: one of the caller's sessions (this one too); 404 for anyone else's. */
    async end(caller: SessionCaller, sessionId: number) {
      const deleted = await repo.transaction(db, async (trx) => {
        // A session another one ended a moment ago (an owner and a thief ending each other) ends nothing more.
        if (!(await repo.holdUserForEnding(trx, caller.user.id, caller.sessionId))) throw new AppError('UNAUTHENTICATED');
        return repo.deleteSession(trx, caller.user.id, sessionId);
      });
      if (!deleted) throw new AppError('NOT_FOUND', { message: 'Сеанс не найден' });
      announceEnded([sessionId], sessionId === caller.sessionId ? 'logout' : 'revoked');
      return { success: sessionId };
    },

    /** POST /api/sessions/end_others: every session of the caller but this one. */
    async endOthers(caller: SessionCaller) {
      const ended = await repo.transaction(db, async (trx) => {
        if (!(await repo.holdUserForEnding(trx, caller.user.id, caller.sessionId))) throw new AppError('UNAUTHENTICATED');
        return repo.deleteOtherSessions(trx, caller.user.id, caller.sessionId);
      });
      announceEnded(ended, 'revoked');
      return { ended: ended.length };
    },

    /** The sweep: ends every session past its idle or hard end and tells its sockets. */
    async sweepEnded() {
      const ended = await repo.deleteEndedSessions(db, deps.dbNow?.());
      announceEnded(
        ended.map((s) => s.id),
        'expired',
      );
      return ended.length;
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

export const SESSION_SWEEP_KIND = 'sessions.sweep';
const SESSION_SWEEP_EVERY_MS = 60_000;

/** The sweep as a recurring job (decision record 0016): once a minute, on one process of those sharing the database. */
export function scheduleSessionSweep(jobs: Pick<Jobs, 'every'>, sessions: Pick<SessionsService, 'sweepEnded'>) {
  jobs.every(SESSION_SWEEP_KIND, SESSION_SWEEP_EVERY_MS, async () => {
    await sessions.sweepEnded();
  });
}
