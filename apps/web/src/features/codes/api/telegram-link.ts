import type { telegramLink } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { ref } from './ref';

const call = ref<typeof telegramLink>('GET', '/api/telegram_link');

/** The bot's /start deep link that links the user's chat; url is null when no bot is configured. */
export const telegramLinkQueryOptions = () =>
  queryOptions({ queryKey: ['codes', 'telegram-link'] as const, queryFn: ({ signal }) => request(call, { signal }), staleTime: 0 });

export const useTelegramLink = (enabled: boolean) => useQuery({ ...telegramLinkQueryOptions(), enabled });
