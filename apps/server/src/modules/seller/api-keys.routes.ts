import { createApiKey, deleteApiKey, listApiKeys } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { ApiKeysService } from './api-keys.service';

/** API keys, managed from the profile with the access token. */
export const apiKeysRoutes =
  ({ apiKeys }: { apiKeys: ApiKeysService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(createApiKey.path, { ...authFirst, schema: { body: createApiKey.body, response: { 200: createApiKey.response } } }, async (r) =>
      apiKeys.create(await requireSignedIn(r), r.body.name),
    );
    app.get(listApiKeys.path, { ...authFirst, schema: { response: { 200: listApiKeys.response } } }, async (r) => apiKeys.list(await requireSignedIn(r)));
    app.delete(deleteApiKey.path, { ...authFirst, schema: { params: deleteApiKey.params, response: { 200: deleteApiKey.response } } }, async (r) =>
      apiKeys.revoke(await requireSignedIn(r), r.params.id),
    );
  };
