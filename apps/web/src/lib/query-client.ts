import { onlineManager, QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';

/**
 * TanStack Query's online state, following the browser from now on. Its own listener starts when the client
 * mounts (after the first screen's prefetch and render) and starts out 'online' whatever the browser says: a page
 * opened offline would miss an `online` event in between and believe it is offline until the network drops and
 * returns again («Нет связи» for good, reads paused, the realtime indicator off).
 */
function followBrowserOnline() {
  onlineManager.setEventListener((setOnline) => {
    if (typeof window === 'undefined' || !window.addEventListener) return undefined;
    const online = () => setOnline(true);
    const offline = () => setOnline(false);
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    // Also when TanStack sets the listener up again (its last subscriber had gone): the events meanwhile were missed.
    setOnline(navigator.onLine !== false);
    return () => {
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
    };
  });
}

export function createQueryClient() {
  followBrowserOnline();
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // A 4xx will not get better by asking again.
        retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
      },
      // Every action is sent when it is made, online or not, and fails at once offline («Нет связи с
      // сервером…»). TanStack's default pauses it and sends it when the connection returns: a code
      // bought, or a deposit cancelled, minutes after the player tapped «Отмена» and moved on.
      mutations: MUTATION_DEFAULTS,
    },
  });
}

export const MUTATION_DEFAULTS = { networkMode: 'always' } as const;
