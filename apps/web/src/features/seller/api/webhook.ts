import {
  deleteWebhook,
  getWebhook,
  type PutWebhookBody,
  putWebhook,
  type RotateWebhookSecretBody,
  rotateWebhookSecret,
  testWebhook,
  webhookDeliveries,
} from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';

export const webhookQueryOptions = () => queryOptions({ queryKey: ['seller', 'webhook'], queryFn: () => request(getWebhook), staleTime: 0 });
export const useWebhook = () => useQuery(webhookQueryOptions());

/** The delivery log refreshes itself while a delivery is still pending. */
export const webhookDeliveriesQueryOptions = () =>
  queryOptions({
    queryKey: ['seller', 'webhook', 'deliveries'],
    queryFn: () => request(webhookDeliveries),
    staleTime: 0,
    refetchInterval: (q) => nextLogRead(q.state.data, Date.now()),
  });

/**
 * When the delivery log is read again while a delivery waits: 2 s after its next try is due (a new
 * delivery's first try, a retry seconds away), else every 30 s. The retries of a dead endpoint run for
 * three days with hours between them; reading every 2 s all that time was a call per 2 s for nothing.
 */
export function nextLogRead(log: Array<{ status: string; next_attempt_at: string | null }> | undefined, now: number): number | false {
  const due = (log ?? [])
    .filter((d) => d.status === 'pending')
    .map((d) => (d.next_attempt_at ? new Date(d.next_attempt_at).getTime() : now));
  if (due.length === 0) return false;
  const soonest = Math.min(...due);
  return Math.min(30_000, Math.max(2_000, soonest - now + 2_000));
}
export const useWebhookDeliveries = () => useQuery(webhookDeliveriesQueryOptions());

export function useWebhookActions() {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: webhookQueryOptions().queryKey });
  return {
    // Both answer the signing secret: with TOTP on they ask for the code (the shared prompt); without it
    // the body carries the current password (an account signed in by Discord or Telegram leaves it out).
    save: useMutation({ mutationFn: (body: PutWebhookBody) => withStepUp((twoFactorCode) => request(putWebhook, { body, twoFactorCode })), onSuccess: refresh }),
    // Read again whatever the answer: a removal whose answer was lost may have gone through.
    remove: useMutation({ mutationFn: () => request(deleteWebhook), onSettled: refresh }),
    rotate: useMutation({
      mutationFn: (body: RotateWebhookSecretBody) => withStepUp((twoFactorCode) => request(rotateWebhookSecret, { body, twoFactorCode })),
    }),
    test: useMutation({ mutationFn: () => request(testWebhook), onSuccess: refresh }),
  };
}
