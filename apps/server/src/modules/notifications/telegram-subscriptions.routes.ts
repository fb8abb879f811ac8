import { addLimitOtvetka, delLimitOtvetka, telegramLink } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { TelegramSubscriptions } from './telegram-subscriptions.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip ?? null });

/** The balance threshold of a wallet and the link to the bot. The token is checked before the body. */
export const telegramSubscriptionsRoutes =
  ({ subscriptions }: { subscriptions: TelegramSubscriptions }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };

    app.post(
      addLimitOtvetka.path,
      { ...authFirst, schema: { body: addLimitOtvetka.body, response: { 200: addLimitOtvetka.response } } },
      async (request) => subscriptions.setThreshold(await callerOf(request), request.body.gamesserver_id, request.body.telegram_price),
    );
    app.post(
      delLimitOtvetka.path,
      { ...authFirst, schema: { body: delLimitOtvetka.body, response: { 200: delLimitOtvetka.response } } },
      async (request) => subscriptions.clearThreshold(await callerOf(request), request.body.gamesserver_id),
    );
    app.get(telegramLink.path, { ...authFirst, schema: { response: { 200: telegramLink.response } } }, async (request) =>
      subscriptions.link(await callerOf(request)),
    );
  };
