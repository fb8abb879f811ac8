import { useCallback, useSyncExternalStore } from 'react';

const listeners = new Map<string, Set<() => void>>();

/**
 * A value kept in local storage and shared live by every component that reads it
 * (the selected server, the selected currency).
 */
export function useLocalState<T>(key: string, parse: (raw: string | null) => T, serialize: (v: T) => string | null) {
  const subscribe = useCallback(
    (cb: () => void) => {
      const set = listeners.get(key) ?? new Set<() => void>();
      listeners.set(key, set);
      set.add(cb);
      return () => set.delete(cb);
    },
    [key],
  );
  const raw = useSyncExternalStore(subscribe, () => localStorage.getItem(key));
  const value = parse(raw);
  const setValue = useCallback(
    (next: T) => {
      const s = serialize(next);
      if (s === null) localStorage.removeItem(key);
      else localStorage.setItem(key, s);
      for (const l of listeners.get(key) ?? []) l();
    },
    [key, serialize],
  );
  return [value, setValue] as const;
}
