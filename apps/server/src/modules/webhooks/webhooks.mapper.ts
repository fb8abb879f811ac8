import type { Webhook, WebhookDelivery, WebhookEvent } from '@adena/contract';
import type { DeliveryRow } from './webhooks.repository';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export const toWebhook = (w: { url: string; events: string[]; created_at: Date }): Webhook => ({
  url: w.url,
  events: w.events as WebhookEvent[],
  created_at: iso(w.created_at)!,
});

export const toDelivery = (d: DeliveryRow): WebhookDelivery => ({
  id: Number(d.id),
  type: d.type as WebhookEvent,
  status: d.status,
  attempts: d.attempts,
  last_status_code: d.last_status_code,
  next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
  created_at: iso(d.created_at)!,
});
