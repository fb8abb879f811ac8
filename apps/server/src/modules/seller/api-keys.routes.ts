import { createApiKey, deleteApiKey, listApiKeys } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { ApiKeysService } from './api-keys.service';

/** API keys, managed from the profile with the access token. */
export const apiKeysRoutes =
  ({ apiKeys, twoFactor }: { apiKeys: ApiKeysService; twoFactor: Pick<TwoFactorService, 'requireLastingAccessAddition'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(createApiKey.path, { ...authFirst, schema: { body: createApiKey.body, response: { 200: createApiKey.response } } }, async (r) => {
      // A key issues codes under /api/v1 with no second factor and outlives logout and a password
      // change: with TOTP on, creating one takes the code; without it the current password, or for an
      // account with neither a fresh Discord or Telegram sign-in (README "Second factors").
      const caller = await requireSignedIn(r);
      await twoFactor.requireLastingAccessAddition(caller, 'apiKey', r.headers['x-two-factor-code'], r.body.password);
      return apiKeys.create(caller, r.body.name);
    });
    app.get(listApiKeys.path, { ...authFirst, schema: { response: { 200: listApiKeys.response } } }, async (r) => apiKeys.list(await requireSignedIn(r)));
    app.delete(deleteApiKey.path, { ...authFirst, schema: { params: deleteApiKey.params, response: { 200: deleteApiKey.response } } }, async (r) =>
      apiKeys.revoke(await requireSignedIn(r), r.params.id),
    );
  };
