import { onlineManager } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useSyncExternalStore } from 'react';
import type { ConnectionState, RealtimeClient } from './realtime';

/** The signed-in user's realtime client, provided by app/realtime/realtime-provider.tsx; null when signed out. */
export const RealtimeContext = createContext<RealtimeClient | null>(null);

const noop = () => () => {};
const subscribeOnline = (cb: () => void) => onlineManager.subscribe(() => cb());
const isOnline = () => onlineManager.isOnline();

/** States the client would leave by itself once it noticed the network was gone. */
const UNAWARE: ReadonlySet<ConnectionState> = new Set(['initialized', 'connecting', 'connected']);

/**
 * SPEC.md's connection state of the user's realtime client, live; null when signed out. `offline`: the
 * browser says there is no network (the same source as the «Нет связи» notice). The socket learns that
 * only when its heartbeat goes unanswered (up to 45 s with Socket.IO's defaults, never under some
 * offline emulations), so meanwhile a «connected» socket is shown as disconnected: no update can come.
 */
export function useRealtimeState(): { state: ConnectionState; errorReason: string | null; offline: boolean } | null {
  const client = useContext(RealtimeContext);
  const subscribe = useCallback((cb: () => void) => (client ? client.onState(() => cb()) : noop()), [client]);
  const state = useSyncExternalStore(subscribe, () => client?.state ?? null);
  const online = useSyncExternalStore(subscribeOnline, isOnline);
  if (!client || state === null) return null;
  return { state: !online && UNAWARE.has(state) ? 'disconnected' : state, errorReason: client.errorReason, offline: !online };
}
