import { deleteWebhook, getWebhook, putWebhook, rotateWebhookSecret, testWebhook, webhookDeliveries } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { WebhooksService } from './webhooks.service';

/** The seller's webhook, set from the profile with the access token (PRODUCT.md section 10). */
export const webhooksRoutes =
  ({ webhooks }: { webhooks: WebhooksService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };
    const caller = requireSignedIn;

    app.get(getWebhook.path, { ...authFirst, schema: { response: { 200: getWebhook.response } } }, async (r) => webhooks.get(await caller(r)));
    app.put(putWebhook.path, { ...authFirst, schema: { body: putWebhook.body, response: { 200: putWebhook.response } } }, async (r) =>
      webhooks.put(await caller(r), r.body),
    );
    app.delete(deleteWebhook.path, { ...authFirst, schema: { response: { 200: deleteWebhook.response } } }, async (r) => webhooks.remove(await caller(r)));
    app.post(rotateWebhookSecret.path, { ...authFirst, schema: { response: { 200: rotateWebhookSecret.response } } }, async (r) =>
      webhooks.rotate(await caller(r)),
    );
    app.post(testWebhook.path, { ...authFirst, schema: { response: { 200: testWebhook.response } } }, async (r) => webhooks.test(await caller(r)));
    app.get(webhookDeliveries.path, { ...authFirst, schema: { response: { 200: webhookDeliveries.response } } }, async (r) =>
      webhooks.deliveries(await caller(r)),
    );
  };
