import { deleteWebhook, getWebhook, putWebhook, rotateWebhookSecret, testWebhook, webhookDeliveries } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { WebhooksService } from './webhooks.service';

/**
 * The seller's webhook, set from the profile with the access token (PRODUCT.md section 10). Setting it
 * and rotating its secret answer the secret, which signs events the seller's receiver trusts, and the
 * endpoint outlives logout and a password change: as creating an API key, both ask for the code with
 * TOTP on; without it the current password, or for an account with neither a fresh Discord or Telegram
 * sign-in (README "Second factors").
 */
export const webhooksRoutes =
  ({ webhooks, twoFactor }: { webhooks: WebhooksService; twoFactor: Pick<TwoFactorService, 'requireLastingAccessAddition'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };
    const caller = requireSignedIn;

    app.get(getWebhook.path, { ...authFirst, schema: { response: { 200: getWebhook.response } } }, async (r) => webhooks.get(await caller(r)));
    app.put(putWebhook.path, { ...authFirst, schema: { body: putWebhook.body, response: { 200: putWebhook.response } } }, async (r) => {
      const who = await caller(r);
      const { password, ...settings } = r.body;
      await twoFactor.requireLastingAccessAddition(who, 'webhook', r.headers['x-two-factor-code'], password);
      return webhooks.put(who, settings);
    });
    app.delete(deleteWebhook.path, { ...authFirst, schema: { response: { 200: deleteWebhook.response } } }, async (r) => webhooks.remove(await caller(r)));
    app.post(rotateWebhookSecret.path, { ...authFirst, schema: { body: rotateWebhookSecret.body, response: { 200: rotateWebhookSecret.response } } }, async (r) => {
      const who = await caller(r);
      await twoFactor.requireLastingAccessAddition(who, 'webhook', r.headers['x-two-factor-code'], r.body?.password);
      return webhooks.rotate(who);
    });
    app.post(testWebhook.path, { ...authFirst, schema: { response: { 200: testWebhook.response } } }, async (r) => webhooks.test(await caller(r)));
    app.get(webhookDeliveries.path, { ...authFirst, schema: { response: { 200: webhookDeliveries.response } } }, async (r) =>
      webhooks.deliveries(await caller(r)),
    );
  };
