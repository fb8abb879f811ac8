import { createPricekod, deletePricekod, updatePricekod } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKey } from '../../lib/idempotency';
import { requireSignedIn } from '../../plugins/auth';
import { fromPricekodBody } from './user-variants.mapper';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { UserVariantsService } from './user-variants.service';

/** A user's own batches of codes (`pricekods` on the wire): create, edit, delete. The token is checked first. */
export const userVariantsRoutes =
  ({ userVariants, twoFactor }: { userVariants: UserVariantsService; twoFactor: Pick<TwoFactorService, 'stepUpUnlessReplayIn'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(
      createPricekod.path,
      { ...authFirst, schema: { body: createPricekod.body, response: { 200: createPricekod.response } } },
      async (request) => {
        // Issuing codes turns balance into bearer value: with TOTP on, a step-up as show_code's.
        const caller = await requireSignedIn(request);
        return twoFactor.stepUpUnlessReplayIn(caller, request.headers['x-two-factor-code'], idempotencyKey(request), (idem, useUp) =>
          userVariants.create(caller, fromPricekodBody(request.body), idem, useUp),
        );
      },
    );
    app.put(
      updatePricekod.path,
      { ...authFirst, schema: { params: updatePricekod.params, body: updatePricekod.body, response: { 200: updatePricekod.response } } },
      async (request) => {
        // An edit may issue codes (a larger count): the same step-up.
        const caller = await requireSignedIn(request);
        return twoFactor.stepUpUnlessReplayIn(caller, request.headers['x-two-factor-code'], idempotencyKey(request), (idem, useUp) =>
          userVariants.edit(caller, request.params.id, fromPricekodBody(request.body), idem, useUp),
        );
      },
    );
    app.delete(
      deletePricekod.path,
      { ...authFirst, schema: { params: deletePricekod.params, response: { 200: deletePricekod.response } } },
      async (request) => userVariants.remove(await requireSignedIn(request), request.params.id, idempotencyKey(request)),
    );
  };
