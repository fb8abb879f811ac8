/**
 * A value loaded at most once per `ttlMs`, shared by concurrent callers. A failed load is not
 * kept. `invalidate()` drops it at once in this process; other processes sharing the database
 * see a change within `ttlMs`.
 */
export function cached<T>(ttlMs: number, load: () => Promise<T>) {
  let value: Promise<T> | null = null;
  let loadedAt = 0;
  return {
    get(): Promise<T> {
      if (!value || Date.now() - loadedAt > ttlMs) {
        loadedAt = Date.now();
        const pending = load();
        value = pending;
        pending.catch(() => {
          if (value === pending) value = null;
        });
      }
      return value;
    },
    invalidate() {
      value = null;
    },
  };
}
