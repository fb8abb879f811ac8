import { passkeyDelete, passkeyLoginOptions, passkeyLoginVerify, passkeyRegisterOptions, passkeyRegisterVerify, passkeysList } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientOf, requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { PasskeysService, RelyingParty } from './passkeys.service';

/** PRODUCT.md section 7's passkey calls. The relying party is PUBLIC_URL's host, else the request's (without port). */
export const passkeysRoutes =
  ({
    passkeys,
    twoFactor,
    publicUrl,
  }: {
    passkeys: PasskeysService;
    twoFactor: Pick<TwoFactorService, 'requireStepUp' | 'requireLastingAccessAddition'>;
    publicUrl: string | undefined;
  }): FastifyPluginAsyncZod =>
  async (app) => {
    const fixed = publicUrl ? new URL(publicUrl) : null;
    const rpOf = (request: FastifyRequest): RelyingParty =>
      fixed ? { id: fixed.hostname, origin: fixed.origin } : { id: request.hostname, origin: `${request.protocol}://${request.host}` };
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    // A passkey signs in alone (both factors): with TOTP on, adding one asks for the code, without it
    // the current password, or a stolen session could leave itself a way in that outlives logout and a
    // password change; an account with neither TOTP nor a password needs a fresh Discord or Telegram
    // sign-in instead. The challenge
    // the verify step needs is only handed out here, to the user it is stored for.
    app.post(
      passkeyRegisterOptions.path,
      { ...authFirst, schema: { body: passkeyRegisterOptions.body, response: { 200: passkeyRegisterOptions.response } } },
      async (request) => {
        const caller = await requireSignedIn(request);
        await twoFactor.requireLastingAccessAddition(caller, 'passkey', request.headers['x-two-factor-code'], request.body?.password);
        return passkeys.registerOptions(caller, rpOf(request));
      },
    );
    app.post(
      passkeyRegisterVerify.path,
      { ...authFirst, schema: { body: passkeyRegisterVerify.body, response: { 200: passkeyRegisterVerify.response } } },
      async (request) => passkeys.registerVerify(await requireSignedIn(request), rpOf(request), request.body.response, request.body.name),
    );
    app.get(passkeysList.path, { ...authFirst, schema: { response: { 200: passkeysList.response } } }, async (request) =>
      passkeys.list(await requireSignedIn(request)),
    );
    // Removing one asks for the code too: a stolen session must not strip the owner's passkeys.
    app.delete(passkeyDelete.path, { ...authFirst, schema: { params: passkeyDelete.params, response: { 200: passkeyDelete.response } } }, async (request) => {
      const caller = await requireSignedIn(request);
      await twoFactor.requireStepUp(caller, request.headers['x-two-factor-code']);
      return passkeys.remove(caller, request.params.id);
    });
    app.post(passkeyLoginOptions.path, { schema: { response: { 200: passkeyLoginOptions.response } } }, (request) => passkeys.loginOptions(rpOf(request)));
    app.post(passkeyLoginVerify.path, { schema: { body: passkeyLoginVerify.body, response: { 200: passkeyLoginVerify.response } } }, (request) =>
      passkeys.loginVerify(rpOf(request), request.body.response, clientOf(request)),
    );
  };
