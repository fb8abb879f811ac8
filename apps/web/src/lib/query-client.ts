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
    },
  });
}

/**
 * For a mutation that a form awaits: sent even when the browser says it is offline, so the form
 * shows «Нет связи с сервером…» at once (TanStack's default would hold the mutation until the
 * connection returns, with the form's button still busy).
 */
export const sendEvenOffline = { networkMode: 'always' } as const;
