import { routes } from '@adena/contract/lite';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { startSession } from '../../../lib/session';

/** web_app: a Telegram mini app's initData signs in without asking (zod-free: it runs on the first screen). */
export const signInWithWebApp = (initData: string) => request(routes.webApp, { body: { init_data: initData }, token: null });

export function useWebApp() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: signInWithWebApp, onSuccess: (auth) => startSession(qc, auth) });
}
