import type { telegramLink, telegramUnlink } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { userQueryOptions } from '../../../lib/session';
import { withStepUp } from '../../../lib/step-up';
import { ref } from './ref';

const call = ref<typeof telegramLink>('GET', '/api/telegram_link');
const unlinkCall = ref<typeof telegramUnlink>('DELETE', '/api/telegram_link');

/** The bot's /start deep link that links the user's chat; url is null when no bot is configured. */
export const telegramLinkQueryOptions = () =>
  queryOptions({
    queryKey: ['codes', 'telegram-link'] as const,
    // With TOTP on, the server asks for the code first (then not again for 10 minutes): the link ties a chat to the notices.
    queryFn: ({ signal }) => withStepUp((twoFactorCode) => request(call, { signal, twoFactorCode })),
    staleTime: 0,
  });

export const useTelegramLink = (enabled: boolean) => useQuery({ ...telegramLinkQueryOptions(), enabled });

/** Unlinks the notice chat; the dialog then offers a fresh link (and the profile's `telegram_linked` is read again). */
export function useTelegramUnlink() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => request(unlinkCall, {}),
    onSuccess: () =>
      Promise.all([qc.invalidateQueries({ queryKey: telegramLinkQueryOptions().queryKey }), qc.invalidateQueries({ queryKey: userQueryOptions().queryKey })]),
  });
}
