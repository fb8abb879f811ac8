import { createApiKey, deleteApiKey, listApiKeys } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { ApiKeysService } from './api-keys.service';

/** API keys, managed from the profile with the access token. */
export const apiKeysRoutes =
  ({ apiKeys, twoFactor }: { apiKeys: ApiKeysService; twoFactor: Pick<TwoFactorService, 'requireStepUp'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(createApiKey.path, { ...authFirst, schema: { body: createApiKey.body, response: { 200: createApiKey.response } } }, async (r) => {
      // A key issues codes under /api/v1 with no second factor: with TOTP on, creating one takes a step-up.
      const caller = await requireSignedIn(r);
      await twoFactor.requireStepUp(caller, r.headers['x-two-factor-code']);
      return apiKeys.create(caller, r.body.name);
    });
    app.get(listApiKeys.path, { ...authFirst, schema: { response: { 200: listApiKeys.response } } }, async (r) => apiKeys.list(await requireSignedIn(r)));
    app.delete(deleteApiKey.path, { ...authFirst, schema: { params: deleteApiKey.params, response: { 200: deleteApiKey.response } } }, async (r) =>
      apiKeys.revoke(await requireSignedIn(r), r.params.id),
    );
  };
