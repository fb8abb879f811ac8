import {
  deleteBalanceUser,
  deleteRequest,
  downBalanceUser,
  downBalanceUserSecondCurrency,
  getUserInputOutputBalance,
  upBalanceUser,
  upBalanceUserSecondCurrency,
} from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type IdempotencyKey, idempotencyKey } from '../../lib/idempotency';
import { type Bearer, requireBearer, requireSignedIn } from '../../plugins/auth';
import { toOpeningInput } from './requests.mapper';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { RequestsService } from './requests.service';

/**
 * The caller of a deposit or withdrawal, whose bearer is checked inside the call's one statement
 * (the database function caller_id), and its Idempotency-Key. A body that fails the schema or a
 * malformed key looks the caller up first, so an unknown token is a 401 before any 422.
 */
async function opening(request: FastifyRequest): Promise<{ bearer: Bearer; idem?: IdempotencyKey }> {
  const bearer = requireBearer(request);
  try {
    if (request.validationError) throw request.validationError;
    return { bearer, idem: idempotencyKey(request) };
  } catch (err) {
    await bearer.caller();
    throw err;
  }
}

/**
 * The player's deposits, withdrawals and history. Thin: the contract's schema, the caller, one
 * service call. The token is checked before the body, so an anonymous caller gets 401 whatever
 * they send; only a deposit or withdrawal whose body is not JSON at all, with a bearer that is
 * present but unknown, gets the 422 of the unparsable body (the bearer is checked in its statement).
 */
export const requestsRoutes =
  ({
    requests: service,
    twoFactor,
  }: {
    requests: Pick<RequestsService, 'deposit' | 'withdraw' | 'cancel' | 'hide' | 'history'>;
    twoFactor: Pick<TwoFactorService, 'requireStepUpIn' | 'isReplay'>;
  }): FastifyPluginAsyncZod =>
  async (app) => {
    const authenticated = async (request: FastifyRequest) => void (await requireSignedIn(request));
    // Deposits and withdrawals check the bearer inside their one statement; here only that there is one.
    const bearer = async (request: FastifyRequest) => void requireBearer(request);

    for (const call of [upBalanceUser, upBalanceUserSecondCurrency]) {
      app.post(call.path, { onRequest: bearer, attachValidation: true, schema: { body: call.body, response: { 200: call.response } } }, async (request) =>
        opening(request).then(({ bearer, idem }) => service.deposit(bearer, toOpeningInput(request.body), idem)),
      );
    }
    for (const call of [downBalanceUser, downBalanceUserSecondCurrency]) {
      app.post(call.path, { onRequest: bearer, attachValidation: true, schema: { body: call.body, response: { 200: call.response } } }, async (request) =>
        opening(request).then(async ({ bearer, idem }) => {
          // Step-up (PRODUCT.md section 7). Without the header, the withdrawal's own statement refuses
          // a user with TOTP on (withdrawer_id), so users without it pay no extra round trip; with
          // it, the code is used up in the withdrawal's transaction, so a withdrawal refused for its
          // amount leaves the code for the corrected retry. A keyed retry whose answer is stored
          // spends no code: its statement replays the answer (withdrawer_id lets only that through).
          const header = request.headers['x-two-factor-code'];
          const input = toOpeningInput(request.body);
          if (header !== undefined) {
            const caller = await bearer.caller();
            if (!(await twoFactor.isReplay(caller, idem))) {
              return twoFactor.requireStepUpIn(caller, header, (useUp) => service.withdraw(bearer, input, idem, useUp), idem);
            }
          }
          return service.withdraw(bearer, input, idem);
        }),
      );
    }

    app.post(
      deleteRequest.path,
      { onRequest: authenticated, schema: { body: deleteRequest.body, response: { 200: deleteRequest.response } } },
      async (request) => service.cancel(await requireSignedIn(request), request.body.id, idempotencyKey(request)),
    );

    app.get(
      deleteBalanceUser.path,
      { onRequest: authenticated, schema: { params: deleteBalanceUser.params, response: { 200: deleteBalanceUser.response } } },
      async (request) => service.hide(await requireSignedIn(request), request.params.id),
    );

    app.get(
      getUserInputOutputBalance.path,
      { onRequest: authenticated, schema: { querystring: getUserInputOutputBalance.query, response: { 200: getUserInputOutputBalance.response } } },
      async (request) => service.history(await requireSignedIn(request), { page: request.query.page, perPage: request.query.per_page, gameServerId: request.query.gamesserver_id }),
    );
  };
