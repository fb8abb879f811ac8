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
import { type Caller as BearerCaller, requireCaller, requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import { toOpeningInput } from './requests.mapper';
import type { RequestsService } from './requests.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip });

/**
 * The caller of a deposit or withdrawal, whose bearer is checked inside the call's one statement
 * (the database function caller_id), and its Idempotency-Key. A body that fails the schema or a
 * malformed key looks the caller up first, so an unknown token is a 401 before any 422.
 */
async function opening(request: FastifyRequest): Promise<{ caller: BearerCaller; idem?: IdempotencyKey }> {
  const caller = requireCaller(request);
  try {
    if (request.validationError) throw request.validationError;
    return { caller, idem: idempotencyKey(request) };
  } catch (err) {
    await caller.user();
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
  ({ requests: service }: { requests: Pick<RequestsService, 'deposit' | 'withdraw' | 'cancel' | 'hide' | 'history'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authenticated = async (request: FastifyRequest) => void (await requireUser(request));
    // Deposits and withdrawals check the bearer inside their one statement; here only that there is one.
    const bearer = async (request: FastifyRequest) => void requireCaller(request);

    for (const call of [upBalanceUser, upBalanceUserSecondCurrency]) {
      app.post(call.path, { onRequest: bearer, attachValidation: true, schema: { body: call.body, response: { 200: call.response } } }, async (request) =>
        opening(request).then(({ caller, idem }) => service.deposit(caller, toOpeningInput(request.body), idem)),
      );
    }
    for (const call of [downBalanceUser, downBalanceUserSecondCurrency]) {
      app.post(call.path, { onRequest: bearer, attachValidation: true, schema: { body: call.body, response: { 200: call.response } } }, async (request) =>
        opening(request).then(({ caller, idem }) => service.withdraw(caller, toOpeningInput(request.body), idem)),
      );
    }

    app.post(
      deleteRequest.path,
      { onRequest: authenticated, schema: { body: deleteRequest.body, response: { 200: deleteRequest.response } } },
      async (request) => service.cancel(await callerOf(request), request.body.id, idempotencyKey(request)),
    );

    app.get(
      deleteBalanceUser.path,
      { onRequest: authenticated, schema: { params: deleteBalanceUser.params, response: { 200: deleteBalanceUser.response } } },
      async (request) => service.hide(await callerOf(request), request.params.id),
    );

    app.get(
      getUserInputOutputBalance.path,
      { onRequest: authenticated, schema: { querystring: getUserInputOutputBalance.query, response: { 200: getUserInputOutputBalance.response } } },
      async (request) => service.history(await callerOf(request), { page: request.query.page, perPage: request.query.per_page, gameServerId: request.query.gamesserver_id }),
    );
  };
