import { useCallback, useSyncExternalStore } from 'react';

const listeners = new Map<string, Set<() => void>>();
/** Keys this tab holds at the value it shows (holdLocalState): another tab's change waits until released. */
const held = new Map<string, string | null>();

const notify = (key: string) => {
  for (const l of listeners.get(key) ?? []) l();
};
const read = (key: string) => (held.has(key) ? (held.get(key) ?? null) : localStorage.getItem(key));

/**
 * While `hold` is on, this tab keeps showing the value `key` has now, whatever another tab stores
 * meanwhile (this tab's own changes still apply); released, it shows what is stored.
 */
export function holdLocalState(key: string, hold: boolean) {
  if (hold === held.has(key)) return;
  if (hold) held.set(key, localStorage.getItem(key));
  else {
    held.delete(key);
    notify(key);
  }
}

/**
 * A value kept in local storage and shared live by every component that reads it
 * (the selected server, the selected currency), following another tab's change as it happens.
 */
export function useLocalState<T>(key: string, parse: (raw: string | null) => T, serialize: (v: T) => string | null) {
  const subscribe = useCallback(
    (cb: () => void) => {
      const set = listeners.get(key) ?? new Set<() => void>();
      listeners.set(key, set);
      set.add(cb);
      // Another tab's change (the event never reaches the tab that made it): shown now rather than at
      // the next unrelated render. null: that tab cleared its storage.
      const onStorage = (e: StorageEvent) => {
        if (e.key === key || e.key === null) cb();
      };
      window.addEventListener('storage', onStorage);
      return () => {
        set.delete(cb);
        window.removeEventListener('storage', onStorage);
      };
    },
    [key],
  );
  const raw = useSyncExternalStore(subscribe, () => read(key));
  const value = parse(raw);
  const setValue = useCallback(
    (next: T) => {
      const s = serialize(next);
      if (s === null) localStorage.removeItem(key);
      else localStorage.setItem(key, s);
      if (held.has(key)) held.set(key, s);
      notify(key);
    },
    [key, serialize],
  );
  return [value, setValue] as const;
}
