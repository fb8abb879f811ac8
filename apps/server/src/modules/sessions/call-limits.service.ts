import { rateLimitsRepository as repo, type RateLimitsQueryable } from './rate-limits.repository';

/** How often a process sends the counts it has gathered, when nothing forces it sooner. */
export const CALL_LIMIT_SYNC_MS = 1000;

interface Entry {
  windowStart: number;
  /** The database's total for the window, as of the last sync (this process's sent hits included). */
  synced: number;
  /** Hits counted here and not yet sent. */
  pending: number;
  /** Hits of this window on their way to the database (counted until the sync answers). */
  sending: number;
  /** Which local window the counts belong to: raised when `hit` starts a new one (the database's start may differ). */
  gen: number;
  cold: boolean;
  /**
   * A sync of this key is on its way (its own or the batch's). The next one waits for it, so this process's hits of a
   * key reach the database in the order they came, and each synced call learns its own place in the count.
   */
  busy: boolean;
  /** Calls past half the limit waiting for the next sync of the key: `index` is their hit's place among `pending`. */
  waiters: Waiter[];
}

interface Waiter {
  index: number;
  max: number;
  resolve: (verdict: number) => void;
}

/**
 * The per-call limits' counters, shared by every process on the database (decision record 0019):
 * each process counts in memory and adds its counts to `rate_limits` in one batched statement at
 * most once a second, not one round trip per request. A key new to this process, or one past half
 * its limit, is synced before answering, so a key another process has used up is refused here at
 * once and the last half of every allowance is counted exactly across processes; a key the database
 * already counts at its limit is refused without a sync until its window ends. `hit` answers at
 * once, without a promise, when no sync is needed (decision record 0027): the common call costs a
 * map lookup. While the database is away each process counts alone and no call waits on it.
 *
 * A synced call is decided by the place of its own hit in the total its sync's statement returned: a
 * key has one sync on its way at a time (calls arriving meanwhile go together in the next), so calls
 * that came after it, or syncs answered in another order than they were sent, never refuse a call
 * within the limit, and a burst past it lets through exactly the limit (stress review 14).
 */
// Long: a factory of short functions sharing the keys' counts and their syncs.
export function createCallLimitStore(db: RateLimitsQueryable, log: { warn(obj: unknown, msg: string): void }, windowMs = 60_000) {
  const entries = new Map<string, Entry>();
  let lastFlush = 0;
  let flushing: Promise<void> | null = null;
  /**
   * After a failed sync nothing waits on the database until a sync succeeds: calls are answered from
   * the local counts and only the once-a-second batch tries again (a host that drops packets would
   * otherwise hold every call of a new address for the connect timeout, /api/health included).
   * Only a sync sent after the last failure ends it: a late answer of one sent before says nothing of now.
   */
  let down = false;
  let sends = 0;
  let lastFailed = 0;

  /** The syncs on their way (closing waits for them before the last one). */
  const inFlight = new Set<Promise<void>>();

  function sync(keys: string[]): Promise<void> {
    const sent = send(keys);
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
    return sent;
  }

  /** Sends the pending hits of the keys that have no sync on its way, and answers the calls waiting on them. */
  async function send(keys: string[]) {
    const batch: Array<{ key: string; hits: number; entry: Entry; gen: number; synced: number; waiters: Waiter[] }> = [];
    for (const key of keys) {
      const entry = entries.get(key);
      if (!entry || entry.busy || entry.pending === 0) continue;
      batch.push({ key, hits: entry.pending, entry, gen: entry.gen, synced: entry.synced, waiters: entry.waiters });
      entry.waiters = [];
      entry.sending += entry.pending;
      entry.pending = 0;
      entry.busy = true;
    }
    if (batch.length === 0) return;
    const sent = ++sends;
    try {
      const totals = await repo.addHits(db, batch, windowMs, new Date());
      const byKey = new Map(totals.map((t) => [t.key, t]));
      for (const b of batch) {
        const t = byKey.get(b.key);
        // An answer of a window that has ended since tells nothing of the new one.
        if (b.entry.gen === b.gen) {
          b.entry.sending -= b.hits;
          if (t) {
            const start = t.windowStart.getTime();
            if (start !== b.entry.windowStart) {
              b.entry.windowStart = start;
              b.entry.synced = t.hits;
            } else b.entry.synced = Math.max(b.entry.synced, t.hits);
            b.entry.cold = false;
          }
        }
        // The batch's hits are the last `hits` of the total, in the order they came; a refused one waits for the end of
        // the database's window that total belongs to (not of a window this process started since).
        for (const w of b.waiters) {
          if (!t) w.resolve(placeVerdict(b.entry, w));
          else w.resolve(t.hits - b.hits + w.index <= w.max ? 0 : secondsLeft(t.windowStart.getTime()));
        }
      }
      if (down && sent > lastFailed) {
        log.warn({}, 'call limits: the database is back, counts are shared again');
        down = false;
      }
    } catch (err) {
      // The database being away must not turn every call into an error: count locally meanwhile,
      // each hit in its own window (a window that has ended meanwhile takes its hits with it).
      for (const b of batch) {
        const e = b.entry;
        if (e.gen === b.gen) {
          e.sending -= b.hits;
          e.pending += b.hits;
          // The batch's hits came before those counted since: they lead `pending` again, the calls waiting since after them.
          for (const w of e.waiters) w.index += b.hits;
          for (const w of b.waiters) w.resolve(placeVerdict(e, w));
        } else {
          // Calls of a window that has ended since: by what it had counted when they were sent; a refusal's wait is over.
          for (const w of b.waiters) w.resolve(b.synced + w.index <= w.max ? 0 : 1);
        }
      }
      // One line per outage, not one per call.
      if (!down) log.warn({ err }, 'call limits: sync failed, counting in this process until the database is back');
      down = true;
      lastFailed = Math.max(lastFailed, sent);
    } finally {
      for (const b of batch) {
        b.entry.busy = false;
        // Calls that came while this sync was out go in the next one at once; while the database is away,
        // they are decided by this process's own count, as every call then is (and so are those of an entry
        // no longer the key's: a sweep never drops a busy entry, this is the guard should one ever be replaced).
        if (b.entry.waiters.length > 0) {
          if (down || entries.get(b.key) !== b.entry) settleLocally(b.entry);
          else void sync([b.key]);
        }
      }
    }
  }

  /** Sends every pending count, and forgets the windows that have ended (with hits never sent: their window is over). */
  function flushAll(now: number) {
    if (flushing || now - lastFlush < CALL_LIMIT_SYNC_MS) return;
    lastFlush = now;
    // Not one with a sync on its way: the calls waiting behind it are answered when it is (the next hit starts the key's
    // new window in place).
    for (const [key, e] of entries) if (!e.busy && e.windowStart + windowMs <= now) entries.delete(key);
    flushing = sync([...entries.keys()]).finally(() => {
      flushing = null;
    });
  }

  /** 0 when the call is allowed, else the seconds until the key's window ends (at least 1). */
  function verdict(entry: Entry, max: number) {
    return entry.synced + entry.sending + entry.pending <= max ? 0 : retryAfter(entry);
  }

  /** The seconds until the key's window ends, at least 1. */
  function retryAfter(entry: Entry) {
    return secondsLeft(entry.windowStart);
  }

  /** The seconds until a window that started at `start` ends, at least 1. */
  function secondsLeft(start: number) {
    return Math.max(1, Math.ceil((start + windowMs - Date.now()) / 1000));
  }

  /**
   * A waiting call decided by this process's own count, by its hit's place in it: what the database held at the last
   * sync, the hits on their way, then its own place among `pending` (calls that came after it do not count against it).
   */
  function placeVerdict(entry: Entry, w: Waiter) {
    return entry.synced + entry.sending + w.index <= w.max ? 0 : retryAfter(entry);
  }

  /** Answers the calls waiting on a key from this process's own count (the database away, or their window ended). */
  function settleLocally(entry: Entry) {
    const waiters = entry.waiters;
    entry.waiters = [];
    for (const w of waiters) w.resolve(placeVerdict(entry, w));
  }

  /** Counts one call of the key: its verdict, or a promise of it when the key must be synced first. */
  function hit(key: string, max: number): number | Promise<number> {
    const now = Date.now();
    let entry = entries.get(key);
    if (entry && entry.windowStart + windowMs <= now) {
      // Calls of the ended window still waiting for a sync: decided by what it counted.
      settleLocally(entry);
      // A new window: what the last one counted (synced or not, say while the database was away) is over.
      entry.windowStart = now;
      entry.synced = 0;
      entry.pending = 0;
      entry.sending = 0;
      entry.gen += 1;
      // Its first call asks the database, as a new key's does: another process may have spent the new
      // window already, which this one, knowing the key only from an earlier window, would not see.
      entry.cold = true;
    }
    if (!entry) {
      entry = { windowStart: now, synced: 0, pending: 0, sending: 0, gen: 0, cold: true, busy: false, waiters: [] };
      entries.set(key, entry);
    }
    entry.pending += 1;
    // The database's own count has reached the limit in this window: refused here, the hit sent with
    // the next batch. Syncing it would turn a flood of refused calls into a write per call on one hot
    // row (on PGlite, behind its one connection, everyone else's requests would wait for them).
    if (!entry.cold && entry.synced >= max) {
      flushAll(now);
      return verdict(entry, max);
    }
    // While the database is away only the once-a-second batch asks it again (a sync that hangs on a
    // connect timeout holds no call); its success ends the outage.
    if ((entry.cold || (entry.synced + entry.sending + entry.pending) * 2 >= max) && !down) {
      const e = entry;
      return new Promise<number>((resolve) => {
        e.waiters.push({ index: e.pending, max, resolve });
        if (!e.busy) void sync([key]);
      });
    }
    flushAll(now);
    return verdict(entry, max);
  }

  return {
    hit,
    /** Sends what is pending now (on close, and for tests). */
    flush: async () => {
      // A key with a sync on its way is sent after it: wait for those first.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await sync([...entries.keys()]);
    },
  };
}
