import { onlineManager, QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';

export function createQueryClient() {
  // TanStack Query v5 starts out 'online' and only listens for changes; a page opened (or
  // reloaded) while offline would never know. Start from what the browser says.
  if (typeof navigator !== 'undefined' && navigator.onLine === false) onlineManager.setOnline(false);
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
