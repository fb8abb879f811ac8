import { discordAuth } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { request } from '../../../lib/api-client';
import { settleSignIn } from './second-step';

/** discord_auth: the server checks state and PKCE and answers the session. */
export const signInWithDiscord = (body: z.input<typeof discordAuth.body>) => request(discordAuth, { body, token: null });

export function useDiscordAuth() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: signInWithDiscord, onSuccess: (res) => void settleSignIn(qc, res) });
}
