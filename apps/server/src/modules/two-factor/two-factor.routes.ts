import { twoFactorDisable, twoFactorEnable, twoFactorRecoveryCodes, twoFactorSetup, twoFactorVerify } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientOf, requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from './two-factor.service';

/** PRODUCT.md section 7's TOTP calls. Thin: the contract's schema, the caller, one service call. */
export const twoFactorRoutes =
  ({ twoFactor }: { twoFactor: TwoFactorService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(twoFactorSetup.path, { ...authFirst, schema: { response: { 200: twoFactorSetup.response } } }, async (request) =>
      twoFactor.setup(await requireSignedIn(request)),
    );
    app.post(twoFactorEnable.path, { ...authFirst, schema: { body: twoFactorEnable.body, response: { 200: twoFactorEnable.response } } }, async (request) =>
      twoFactor.enable(await requireSignedIn(request), request.body.code, request.body.password),
    );
    app.post(twoFactorDisable.path, { ...authFirst, schema: { body: twoFactorDisable.body, response: { 200: twoFactorDisable.response } } }, async (request) =>
      twoFactor.disable(await requireSignedIn(request), request.body.code),
    );
    app.post(
      twoFactorRecoveryCodes.path,
      { ...authFirst, schema: { body: twoFactorRecoveryCodes.body, response: { 200: twoFactorRecoveryCodes.response } } },
      async (request) => twoFactor.newRecoveryCodes(await requireSignedIn(request), request.body.code),
    );
    app.post(twoFactorVerify.path, { schema: { body: twoFactorVerify.body, response: { 200: twoFactorVerify.response } } }, (request) =>
      twoFactor.verify(clientOf(request), request.body.two_factor_token, request.body.code),
    );
  };
