import { deleteWebhook, getWebhook, putWebhook, rotateWebhookSecret, testWebhook, webhookDeliveries } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { WebhooksService } from './webhooks.service';

/**
 * The seller's webhook, set from the profile with the access token (PRODUCT.md section 10). Setting it
 * and rotating its secret answer the secret, which signs events the seller's receiver trusts: with TOTP
 * on, both ask for the code, as creating an API key does.
 */
export const webhooksRoutes =
  ({ webhooks, twoFactor }: { webhooks: WebhooksService; twoFactor: Pick<TwoFactorService, 'requireStepUp'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };
    const caller = requireSignedIn;

    app.get(getWebhook.path, { ...authFirst, schema: { response: { 200: getWebhook.response } } }, async (r) => webhooks.get(await caller(r)));
    app.put(putWebhook.path, { ...authFirst, schema: { body: putWebhook.body, response: { 200: putWebhook.response } } }, async (r) => {
      const who = await caller(r);
      await twoFactor.requireStepUp(who, r.headers['x-two-factor-code']);
      return webhooks.put(who, r.body);
    });
    app.delete(deleteWebhook.path, { ...authFirst, schema: { response: { 200: deleteWebhook.response } } }, async (r) => webhooks.remove(await caller(r)));
    app.post(rotateWebhookSecret.path, { ...authFirst, schema: { response: { 200: rotateWebhookSecret.response } } }, async (r) => {
      const who = await caller(r);
      await twoFactor.requireStepUp(who, r.headers['x-two-factor-code']);
      return webhooks.rotate(who);
    });
    app.post(testWebhook.path, { ...authFirst, schema: { response: { 200: testWebhook.response } } }, async (r) => webhooks.test(await caller(r)));
    app.get(webhookDeliveries.path, { ...authFirst, schema: { response: { 200: webhookDeliveries.response } } }, async (r) =>
      webhooks.deliveries(await caller(r)),
    );
  };
