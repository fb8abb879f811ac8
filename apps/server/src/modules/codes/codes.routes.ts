import { activationCode, authVariantyAdenyZaKod, cancelCode, myCodes, showCode, variantyAdenyZaKod } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKey } from '../../lib/idempotency';
import { requireSignedIn, requireSignedInWith } from '../../plugins/auth';
import { fromShowCodeBody, withMaskedCodes } from './codes.mapper';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { CodesService } from './codes.service';

/**
 * Gift codes: price data, issue, activation, cancel. Thin: the contract's schema, the caller, one
 * service call. Calls that need a user check the token before the body is validated, so an
 * anonymous caller gets 401 whatever they send.
 */
export const codesRoutes =
  ({ codes, twoFactor }: { codes: CodesService; twoFactor: Pick<TwoFactorService, 'stepUpUnlessReplayIn' | 'requireRecentStepUp' | 'mayShowCodes'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.get(
      variantyAdenyZaKod.path,
      { schema: { params: variantyAdenyZaKod.params, response: { 200: variantyAdenyZaKod.response } } },
      (request) => codes.priceData(request.params.id),
    );
    // A cached caller's price data is read in the round trip that confirms their session (decision record 0026),
    // still before the parameters are validated: a 401 comes before a 422.
    const priceRead = new WeakMap<FastifyRequest, Parameters<CodesService['authPriceData']>[2]>();
    app.get(
      authVariantyAdenyZaKod.path,
      {
        onRequest: async (request: FastifyRequest) => {
          const params = authVariantyAdenyZaKod.params.safeParse(request.params);
          const read = params.success ? (userId: number) => codes.priceDataOnFeed(userId, params.data.id) : async () => undefined;
          priceRead.set(request, (await requireSignedInWith(request, read)).value);
        },
        schema: { params: authVariantyAdenyZaKod.params, response: { 200: authVariantyAdenyZaKod.response } },
      },
      async (request) => {
        const caller = await requireSignedIn(request);
        const data = await codes.authPriceData(caller, request.params.id, priceRead.get(request));
        // With TOTP on, the open codes' texts only after a step-up: a stolen session could activate them elsewhere.
        const header = request.headers['x-two-factor-code'];
        if (!caller.user.totp_secret || (header === undefined && data.kods.length + data.svoy_variant_kods.length === 0)) return data;
        return (await twoFactor.mayShowCodes(caller, header)) ? data : withMaskedCodes(data);
      },
    );
    app.post(showCode.path, { ...authFirst, schema: { body: showCode.body, response: { 200: showCode.response } } }, async (request) => {
      const caller = await requireSignedIn(request);
      // Step-up (PRODUCT.md section 7): with TOTP on, a code in X-Two-Factor-Code, used up in the issue's transaction.
      // A keyed retry whose answer is stored is replayed without a fresh code.
      return twoFactor.stepUpUnlessReplayIn(caller, request.headers['x-two-factor-code'], idempotencyKey(request), (idem, useUp) =>
        codes.issueCode(caller, fromShowCodeBody(request.body), idem, useUp),
      );
    });
    app.post(
      activationCode.path,
      { ...authFirst, schema: { body: activationCode.body, response: { 200: activationCode.response } } },
      async (request) => codes.activateCode(await requireSignedIn(request), request.body.sert),
    );
    app.post(
      cancelCode.path,
      { ...authFirst, schema: { params: cancelCode.params, response: { 200: cancelCode.response } } },
      async (request) => codes.cancelCode(await requireSignedIn(request), request.params.id, idempotencyKey(request)),
    );
    app.get(myCodes.path, { ...authFirst, schema: { querystring: myCodes.query, response: { 200: myCodes.response } } }, async (request) => {
      const caller = await requireSignedIn(request);
      // The list shows every code's text: with TOTP on, a step-up (or one by this session in the last 10 minutes).
      await twoFactor.requireRecentStepUp(caller, request.headers['x-two-factor-code']);
      return codes.myCodes(caller, { status: request.query.status, gameServerId: request.query.gamesserver_id, page: request.query.page });
    });
  };
