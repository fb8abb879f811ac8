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
import type { Deps } from '../../app';
import { idempotencyKey } from '../../lib/idempotency';
import { requireUser } from '../../plugins/auth';
import { createTelegramBot } from '../codes/telegram-bot';
import { createRequestsService } from './requests.service';

/**
 * The player's deposits, withdrawals and history. Thin: the contract's schema, the caller, one
 * service call. The token is checked before the body, so an anonymous caller gets 401 whatever
 * they send.
 */
export const requestsRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const service = createRequestsService({ db: deps.db.kysely, realtime: deps.realtime, bot: createTelegramBot(deps.config), log: app.log });
    app.addHook('onClose', async () => service.settle());
    app.addHook('onRequest', async (request: FastifyRequest) => void (await requireUser(request)));

    for (const call of [upBalanceUser, upBalanceUserSecondCurrency]) {
      app.post(call.path, { schema: { body: call.body, response: { 200: call.response } } }, async (request) =>
        service.deposit(await requireUser(request), request.body, idempotencyKey(request)),
      );
    }
    for (const call of [downBalanceUser, downBalanceUserSecondCurrency]) {
      app.post(call.path, { schema: { body: call.body, response: { 200: call.response } } }, async (request) =>
        service.withdraw(await requireUser(request), request.body, idempotencyKey(request)),
      );
    }

    app.post(deleteRequest.path, { schema: { body: deleteRequest.body, response: { 200: deleteRequest.response } } }, async (request) =>
      service.cancel(await requireUser(request), request.body.id, idempotencyKey(request)),
    );

    app.get(deleteBalanceUser.path, { schema: { params: deleteBalanceUser.params, response: { 200: deleteBalanceUser.response } } }, async (request) =>
      service.hide(await requireUser(request), request.params.id),
    );

    app.get(
      getUserInputOutputBalance.path,
      { schema: { querystring: getUserInputOutputBalance.query, response: { 200: getUserInputOutputBalance.response } } },
      async (request) => service.history(await requireUser(request), request.query),
    );
  };
