import { createPricekod, deletePricekod, updatePricekod } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKey } from '../../lib/idempotency';
import { requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import { fromPricekodBody } from './user-variants.mapper';
import type { UserVariantsService } from './user-variants.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip ?? null });

/** A user's own batches of codes (`pricekods` on the wire): create, edit, delete. The token is checked first. */
export const userVariantsRoutes =
  ({ userVariants }: { userVariants: UserVariantsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };

    app.post(
      createPricekod.path,
      { ...authFirst, schema: { body: createPricekod.body, response: { 200: createPricekod.response } } },
      async (request) => userVariants.create(await callerOf(request), fromPricekodBody(request.body), idempotencyKey(request)),
    );
    app.put(
      updatePricekod.path,
      { ...authFirst, schema: { params: updatePricekod.params, body: updatePricekod.body, response: { 200: updatePricekod.response } } },
      async (request) => userVariants.edit(await callerOf(request), request.params.id, fromPricekodBody(request.body), idempotencyKey(request)),
    );
    app.delete(
      deletePricekod.path,
      { ...authFirst, schema: { params: deletePricekod.params, response: { 200: deletePricekod.response } } },
      async (request) => userVariants.remove(await callerOf(request), request.params.id),
    );
  };
