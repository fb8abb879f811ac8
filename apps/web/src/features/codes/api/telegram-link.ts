import type { telegramLink } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { ref } from './ref';

const call = ref<typeof telegramLink>('GET', '/api/telegram_link');

/** The bot's /start deep link that links the user's chat; url is null when no bot is configured. */
export const telegramLinkQueryOptions = () =>
  queryOptions({
    queryKey: ['codes', 'telegram-link'] as const,
    // With TOTP on, the server asks for the code first (then not again for 10 minutes): the link ties a chat to the notices.
    queryFn: ({ signal }) => withStepUp((twoFactorCode) => request(call, { signal, twoFactorCode })),
    staleTime: 0,
  });

export const useTelegramLink = (enabled: boolean) => useQuery({ ...telegramLinkQueryOptions(), enabled });
