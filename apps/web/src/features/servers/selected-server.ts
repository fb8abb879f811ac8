import { useCallback, useSyncExternalStore } from 'react';

const KEY = 'gamesserver_id';
const listeners = new Set<() => void>();

function read(): number | null {
  const n = Number(localStorage.getItem(KEY));
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The chosen game server, kept in local storage and shared by every component. */
export function useSelectedServerId(): [number | null, (id: number | null) => void] {
  const id = useSyncExternalStore(
    (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    read,
  );
  const set = useCallback((next: number | null) => {
    if (next === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, String(next));
    for (const l of listeners) l();
  }, []);
  return [id, set];
}
