import { createContext, useCallback, useContext, useSyncExternalStore } from 'react';
import type { ConnectionState, RealtimeClient } from './realtime';

/** The signed-in user's realtime client, provided by app/realtime/realtime-provider.tsx; null when signed out. */
export const RealtimeContext = createContext<RealtimeClient | null>(null);

const noop = () => () => {};

/** SPEC.md's connection state of the user's realtime client, live; null when signed out. */
export function useRealtimeState(): { state: ConnectionState; errorReason: string | null } | null {
  const client = useContext(RealtimeContext);
  const subscribe = useCallback((cb: () => void) => (client ? client.onState(() => cb()) : noop()), [client]);
  const state = useSyncExternalStore(subscribe, () => client?.state ?? null);
  if (!client || state === null) return null;
  return { state, errorReason: client.errorReason };
}
