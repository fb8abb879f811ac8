import { AppError } from '../../lib/app-error';
import { hashToken, newToken } from '../../lib/tokens';
import type { Caller, Client, User } from './caller';
import { type Queryable, sessionsRepository as repo } from './sessions.repository';

export type { Queryable } from './sessions.repository';

const ACCESS_TOKEN_TTL_MS = 90 * 24 * 60 * 60_000;
const NEW_PASSWORD_TOKEN_TTL_MS = 15 * 60_000;
/** A socket token lives long enough to connect; the client fetches a fresh one for every reconnect. */
const REALTIME_TOKEN_TTL_MS = 5 * 60_000;
/** A statement download link is opened at once; it works once. */
const DOWNLOAD_TOKEN_TTL_MS = 2 * 60_000;

/**
 * Tokens and the caller behind them. Tokens are stored only as their SHA-256; the functions that
 * write take the handle of the caller's transaction, so a session starts in the same transaction
 * as the account change that earns it.
 */
export function createSessionsService(deps: { db: Queryable; clock?: () => Date }) {
  const { db } = deps;
  const now = deps.clock ?? (() => new Date());

  return {
    /** The signed-in caller behind an access token, or null (no token, unknown, expired, blocked). */
    async callerOf(accessToken: string | undefined, client: Client): Promise<Caller | null> {
      if (!accessToken) return null;
      const user = await repo.findUserByToken(db, hashToken(accessToken), 'access');
      return user ? { user, ip: client.ip } : null;
    },

    /** The user a socket token belongs to (POST /api/ably-token), or null. */
    userOfRealtimeToken(token: string | undefined): Promise<User | null> {
      return token ? repo.findUserByToken(db, hashToken(token), 'realtime') : Promise.resolve(null);
    },

    /** A new access token for the user; returns it in clear, once. */
    async issueAccessToken(userId: number, q: Queryable = db): Promise<string> {
      const token = newToken();
      await repo.insertToken(q, userId, 'access', hashToken(token), new Date(now().getTime() + ACCESS_TOKEN_TTL_MS));
      return token;
    },

    /** A socket token for the caller (POST /api/ably-token); returns it in clear, once, with its expiry. */
    async issueRealtimeToken(caller: Caller): Promise<{ token: string; expiresAt: Date }> {
      const token = newToken();
      const issuedAt = now();
      const expiresAt = new Date(issuedAt.getTime() + REALTIME_TOKEN_TTL_MS);
      await repo.replaceExpiredRealtimeTokens(db, caller.user.id, hashToken(token), expiresAt, issuedAt);
      return { token, expiresAt };
    },

    /** A one-time token for a download link (the statement's CSV in Telegram); returns it in clear, once. */
    async issueDownloadToken(caller: Caller): Promise<{ token: string; expiresAt: Date }> {
      const token = newToken();
      const expiresAt = new Date(now().getTime() + DOWNLOAD_TOKEN_TTL_MS);
      await repo.insertToken(db, caller.user.id, 'download', hashToken(token), expiresAt);
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

    /** Whether a new-password token is live, without using it up. */
    isLiveNewPasswordToken: (token: string) => repo.hasLiveToken(db, hashToken(token), 'new_password', now()),

    /** Uses a new-password token up; returns whose it was, or null when it is not live. */
    takeNewPasswordToken: (token: string, q: Queryable = db) => repo.takeToken(q, hashToken(token), 'new_password', now()),

    /** Ends every session, socket token and pending new-password token of the user. */
    async endAllSessions(userId: number, q: Queryable = db) {
      await repo.deleteAllTokens(q, userId);
    },

    /** Ends the session of this access token only; 401 when there is none. */
    async logout(accessToken: string | undefined) {
      const ended = accessToken ? await repo.deleteToken(db, hashToken(accessToken), 'access') : false;
      if (!ended) throw new AppError('UNAUTHENTICATED');
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
