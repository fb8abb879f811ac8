import { telegramAuth } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { startSession } from '../../../lib/session';

/** telegram_auth: the Login Widget's signed fields as Telegram sent them, for the server to check. */
export const signInWithTelegram = (data: Record<string, unknown>) => request(telegramAuth, { body: data as never, token: null });

export function useTelegramAuth() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: signInWithTelegram, onSuccess: (auth) => startSession(qc, auth) });
}
