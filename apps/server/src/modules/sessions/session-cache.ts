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
/** Users whose invalidation is remembered for fills in flight before all of them are refused at once. */
const INVALIDATIONS_KEPT = 10_000;

/** What the change feed says (db/changes.ts): a user's sessions or row changed; LISTEN lost or back. */
export interface SessionChanges {
  subscribe(handlers: { change(payload: string): void; down(): void; up(): void }): () => void;
  /** True once every notification committed before the call has been handed over (a read barrier). */
  sync(): Promise<boolean>;
}

export interface CachedCaller {
  user: User;
  sessionId: number;
}

interface Entry extends CachedCaller {
  /** Local clock (ms) after which the entry is not used: the earlier of its TTL and the session's end. */
  until: number;
}

/**
 * Token hash → the caller behind it, per process (decision record 0026). Used only while this
 * process LISTENs for `session_changed`: a change of a user's sessions or row drops their entries;
 * LISTEN going down empties the cache and turns it off until LISTEN is back.
 *
 * A hit is answered only after a read barrier on the LISTEN connection (`sync`): every change
 * committed before the request arrived has then been heard, whichever process made it.
 *
 * A fill races a change: a lookup that started before a change may answer what was true before
 * it, and must not be stored once the change's notification has arrived. Every fill therefore
 * carries the sequence number of when it started, and is refused when its user (or everyone) was
 * invalidated since.
 */
// Long: a factory of short functions sharing the entries and their sequence numbers.
export function createSessionCache(opts: { ttlMs?: number; max?: number; now?: () => number } = {}) {
  const ttl = opts.ttlMs ?? SESSION_CACHE_TTL_MS;
  const max = opts.max ?? SESSION_CACHE_MAX;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const byUser = new Map<number, Set<string>>();
  const invalidatedAt = new Map<number, number>();
  let seq = 0;
  /** Fills started before this are refused (everything was invalidated at once). */
  let floor = 0;
  let live = false;
  let feed: SessionChanges | null = null;

  const remove = (hash: string) => {
    const e = entries.get(hash);
    if (!e) return;
    entries.delete(hash);
    const set = byUser.get(e.user.id);
    set?.delete(hash);
    if (set?.size === 0) byUser.delete(e.user.id);
  };
  const dropAll = () => {
    entries.clear();
    byUser.clear();
    invalidatedAt.clear();
    floor = ++seq;
  };
  const dropUser = (userId: number) => {
    if (invalidatedAt.size >= INVALIDATIONS_KEPT) dropAll();
    invalidatedAt.set(userId, ++seq);
    for (const hash of byUser.get(userId) ?? []) entries.delete(hash);
    byUser.delete(userId);
  };

  return {
    /** The cached caller of a token hash, when the cache is on and the entry is fresh. */
    get(hash: string): CachedCaller | undefined {
      if (!live) return undefined;
      const e = entries.get(hash);
      if (!e) return undefined;
      if (now() >= e.until) {
        remove(hash);
        return undefined;
      }
      return e;
    },

    /**
     * The cached caller, confirmed by the read barrier: undefined when there is no fresh entry, the
     * barrier fails, or a change heard meanwhile dropped it.
     */
    async lookup(hash: string): Promise<CachedCaller | undefined> {
      if (!feed || !this.get(hash)) return undefined;
      if (!(await feed.sync())) return undefined;
      return this.get(hash);
    },

    /**
     * The cached caller with a read of theirs that was its own barrier (`ChangeFeed.read` on the feed this
     * cache follows: answered after every change committed before it was sent): one round trip instead of
     * `lookup`'s barrier and then the read. Undefined when there is no fresh entry, the read answered
     * undefined (the feed could not take it), or a change heard before its answer dropped the entry.
     */
    async lookupWith<T>(hash: string, read: (userId: number) => Promise<T | undefined>): Promise<{ hit: CachedCaller; value: T } | undefined> {
      const first = this.get(hash);
      if (!first) return undefined;
      const value = await read(first.user.id);
      const hit = value === undefined ? undefined : this.get(hash);
      return hit && value !== undefined ? { hit, value } : undefined;
    },

    /** Call before the database lookup; hand the answer to `put` with it. */
    begin: () => seq,

    /**
     * Stores a caller found by a lookup that began at `started`; `endsInMs` is how long the session
     * had left by the database's clock (null: no end). Refused when the cache is off or the user
     * changed since the lookup began.
     */
    put(hash: string, found: CachedCaller, endsInMs: number | null, started: number) {
      if (!live || started < floor || (invalidatedAt.get(found.user.id) ?? -1) > started) return;
      const t = now();
      const until = Math.min(t + ttl, endsInMs === null ? Number.POSITIVE_INFINITY : t + endsInMs);
      if (until <= t) return;
      remove(hash);
      while (entries.size >= max) {
        const oldest = entries.keys().next().value as string;
        remove(oldest);
      }
      entries.set(hash, { user: found.user, sessionId: found.sessionId, until });
      const set = byUser.get(found.user.id) ?? new Set<string>();
      set.add(hash);
      byUser.set(found.user.id, set);
    },

    /** Follows a change feed: a user id invalidates that user; down and up empty the cache, and only up turns it on. */
    follow(changes: SessionChanges) {
      feed = changes;
      return changes.subscribe({
        change(payload) {
          const userId = Number(payload);
          if (Number.isInteger(userId)) dropUser(userId);
          else dropAll();
        },
        down() {
          live = false;
          dropAll();
        },
        up() {
          dropAll();
          live = true;
        },
      });
    },

    get live() {
      return live;
    },
    get size() {
      return entries.size;
    },
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
