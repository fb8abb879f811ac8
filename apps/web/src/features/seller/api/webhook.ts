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
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'pending') ? 2000 : false),
  });
export const useWebhookDeliveries = () => useQuery(webhookDeliveriesQueryOptions());

export function useWebhookActions() {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: webhookQueryOptions().queryKey });
  return {
    // Both answer the signing secret: with TOTP on they ask for the code (the shared prompt); without it
    // the body carries the current password (an account signed in by Discord or Telegram leaves it out).
    save: useMutation({ mutationFn: (body: PutWebhookBody) => withStepUp((twoFactorCode) => request(putWebhook, { body, twoFactorCode })), onSuccess: refresh }),
    remove: useMutation({ mutationFn: () => request(deleteWebhook), onSuccess: refresh }),
    rotate: useMutation({
      mutationFn: (body: RotateWebhookSecretBody) => withStepUp((twoFactorCode) => request(rotateWebhookSecret, { body, twoFactorCode })),
    }),
    test: useMutation({ mutationFn: () => request(testWebhook), onSuccess: refresh }),
  };
}
