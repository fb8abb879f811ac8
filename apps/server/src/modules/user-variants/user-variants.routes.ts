import { createPricekod, deletePricekod, updatePricekod } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKey } from '../../lib/idempotency';
import { requireSignedIn } from '../../plugins/auth';
import { fromPricekodBody } from './user-variants.mapper';
import type { UserVariantsService } from './user-variants.service';

/** A user's own batches of codes (`pricekods` on the wire): create, edit, delete. The token is checked first. */
export const userVariantsRoutes =
  ({ userVariants }: { userVariants: UserVariantsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(
      createPricekod.path,
      { ...authFirst, schema: { body: createPricekod.body, response: { 200: createPricekod.response } } },
      async (request) => userVariants.create(await requireSignedIn(request), fromPricekodBody(request.body), idempotencyKey(request)),
    );
    app.put(
      updatePricekod.path,
      { ...authFirst, schema: { params: updatePricekod.params, body: updatePricekod.body, response: { 200: updatePricekod.response } } },
      async (request) => userVariants.edit(await requireSignedIn(request), request.params.id, fromPricekodBody(request.body), idempotencyKey(request)),
    );
    app.delete(
      deletePricekod.path,
      { ...authFirst, schema: { params: deletePricekod.params, response: { 200: deletePricekod.response } } },
      async (request) => userVariants.remove(await requireSignedIn(request), request.params.id),
    );
  };
