import { createFollowedCache, type FollowedChanges } from '../../db/followed-cache';
import type { User } from './caller';

/**
 * How long a caller found in the database answers from memory. Short, because the database path
 * is what moves `last_seen_at` (at most once a minute, so a busy session's idle end lags its last
 * request by at most a minute plus this), and as a safety net should a notification ever be lost
 * while LISTEN still looks alive (decision record 0026).
 */
export const SESSION_CACHE_TTL_MS = 30_000;
/** Entries kept at most (the oldest go first): some hundred bytes each, a few MB at most. */
export const SESSION_CACHE_MAX = 10_000;
/** What the change feed says (db/changes.ts): a user's sessions or row changed; LISTEN lost or back. */
export interface SessionChanges extends FollowedChanges {
  /** True once every notification committed before the call has been handed over (a read barrier). */
  sync(): Promise<boolean>;
}

export interface CachedCaller {
  user: User;
  sessionId: number;
}

/**
 * Token hash → the caller behind it, per process (decision record 0026). Used only while this
 * process LISTENs for `session_changed`: a change of a user's sessions or row drops their entries;
 * LISTEN going down empties the cache and turns it off until LISTEN is back (db/followed-cache.ts,
 * which also refuses a fill that raced a change).
 *
 * A hit is answered only after a read barrier on the LISTEN connection (`sync`): every change
 * committed before the request arrived has then been heard, whichever process made it.
 */
export function createSessionCache(opts: { ttlMs?: number; max?: number; now?: () => number } = {}) {
  const cache = createFollowedCache<CachedCaller>({ ttlMs: opts.ttlMs ?? SESSION_CACHE_TTL_MS, max: opts.max ?? SESSION_CACHE_MAX, now: opts.now });
  let feed: SessionChanges | null = null;

  return {
    /** The cached caller of a token hash, when the cache is on and the entry is fresh. */
    get: (hash: string): CachedCaller | undefined => cache.get(hash),

    /**
     * The cached caller, confirmed by the read barrier: undefined when there is no fresh entry, the
     * barrier fails, or a change heard meanwhile dropped it.
     */
    async lookup(hash: string): Promise<CachedCaller | undefined> {
      if (!feed || !cache.get(hash)) return undefined;
      if (!(await feed.sync())) return undefined;
      return cache.get(hash);
    },

    /**
     * The cached caller with a read of theirs that was its own barrier (`ChangeFeed.read` on the feed this
     * cache follows: answered after every change committed before it was sent): one round trip instead of
     * `lookup`'s barrier and then the read. Undefined when there is no fresh entry, the read answered
     * undefined (the feed could not take it), or a change heard before its answer dropped the entry.
     */
    async lookupWith<T>(hash: string, read: (userId: number) => Promise<T | undefined>): Promise<{ hit: CachedCaller; value: T } | undefined> {
      const first = cache.get(hash);
      if (!first) return undefined;
      const value = await read(first.user.id);
      const hit = value === undefined ? undefined : cache.get(hash);
      return hit && value !== undefined ? { hit, value } : undefined;
    },

    /** Call before the database lookup; hand the answer to `put` with it. */
    begin: cache.begin,

    /**
     * Stores a caller found by a lookup that began at `started`; `endsInMs` is how long the session
     * had left by the database's clock (null: no end). Refused when the cache is off or the user
     * changed since the lookup began.
     */
    put(hash: string, found: CachedCaller, endsInMs: number | null, started: number) {
      cache.put(hash, found.user.id, { user: found.user, sessionId: found.sessionId }, started, endsInMs);
    },

    /** Follows a change feed: a user id invalidates that user; down and up empty the cache, and only up turns it on. */
    follow(changes: SessionChanges) {
      feed = changes;
      return cache.follow(changes);
    },

    get live() {
      return cache.live;
    },
    get size() {
      return cache.size;
    },
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
