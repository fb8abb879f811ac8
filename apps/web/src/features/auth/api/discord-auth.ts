import { discordAuth } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { request } from '../../../lib/api-client';
import { sendEvenOffline } from '../../../lib/query-client';
import { settleSignIn } from './second-step';

/** discord_auth: the server checks state and PKCE and answers the session. */
export const signInWithDiscord = (body: z.input<typeof discordAuth.body>) => request(discordAuth, { body, token: null });

export function useDiscordAuth() {
  const qc = useQueryClient();
  return useMutation({ ...sendEvenOffline, mutationFn: signInWithDiscord, onSuccess: (res) => void settleSignIn(qc, res) });
}
