import type { ChangeHandlers } from './changes';

/** What a followed cache hears (a channel of db/changes.ts's feed): a user's id, anything else for everyone; LISTEN lost or back. */
export interface FollowedChanges {
  subscribe(handlers: ChangeHandlers): () => void;
}

/** Users whose invalidation is remembered for fills in flight before all of them are refused at once. */
const INVALIDATIONS_KEPT = 10_000;

interface Entry<V> {
  userId: number;
  value: V;
  /** Local clock (ms) after which the entry is not used. */
  until: number;
}

/**
 * Values of users, kept per process while it LISTENs on a channel that names the user whose values changed
 * (decision record 0026): a notification drops that user's entries, one that names nobody (or more users
 * than are remembered) drops them all, and LISTEN going down empties the cache and turns it off until
 * LISTEN is back. Entries live at most `ttlMs` (a safety net should a notification ever be lost while LISTEN
 * still looks alive); past `max` the oldest go first.
 *
 * A fill races a change: a read that started before a change may answer what was true before it, and must
 * not be stored once the change's notification has arrived. Every fill therefore carries the sequence number
 * of when its read started (`begin`), and is refused when its user (or everyone) was invalidated since.
 * Answering from it is the caller's part: only after a read barrier on the same LISTEN connection (or a read
 * that is its own), which hands over every notification committed before it.
 */
// Long: a factory of short functions sharing the entries and their sequence numbers.
export function createFollowedCache<V>(opts: { ttlMs: number; max: number; now?: () => number }) {
  const { ttlMs, max } = opts;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry<V>>();
  const byUser = new Map<number, Set<string>>();
  const invalidatedAt = new Map<number, number>();
  let seq = 0;
  /** Fills started before this are refused (everything was invalidated at once). */
  let floor = 0;
  let live = false;

  const remove = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    const set = byUser.get(e.userId);
    set?.delete(key);
    if (set?.size === 0) byUser.delete(e.userId);
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
    for (const key of byUser.get(userId) ?? []) entries.delete(key);
    byUser.delete(userId);
  };

  return {
    /** The value under `key`, when the cache is on and the entry is fresh. */
    get(key: string): V | undefined {
      if (!live) return undefined;
      const e = entries.get(key);
      if (!e) return undefined;
      if (now() >= e.until) {
        remove(key);
        return undefined;
      }
      return e.value;
    },

    /** Call before the read whose answer is to be stored; hand the answer to `put` with it. */
    begin: () => seq,

    /**
     * Stores `value` of `userId`, read by a read that began at `started`; `endsInMs`: how long it may be
     * used at most, besides the TTL (null: no such end). Refused when the cache is off or the user
     * changed since the read began.
     */
    put(key: string, userId: number, value: V, started: number, endsInMs: number | null = null) {
      if (!live || started < floor || (invalidatedAt.get(userId) ?? -1) > started) return;
      const t = now();
      const until = Math.min(t + ttlMs, endsInMs === null ? Number.POSITIVE_INFINITY : t + endsInMs);
      if (until <= t) return;
      remove(key);
      while (entries.size >= max) {
        const oldest = entries.keys().next().value as string;
        remove(oldest);
      }
      entries.set(key, { userId, value, until });
      const set = byUser.get(userId) ?? new Set<string>();
      set.add(key);
      byUser.set(userId, set);
    },

    /** Follows a change feed's channel: a user id invalidates that user; down and up empty the cache, and only up turns it on. */
    follow(changes: FollowedChanges) {
      return changes.subscribe({
        change(payload) {
          const userId = Number(payload);
          if (payload !== '' && Number.isInteger(userId)) dropUser(userId);
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

export type FollowedCache<V> = ReturnType<typeof createFollowedCache<V>>;
