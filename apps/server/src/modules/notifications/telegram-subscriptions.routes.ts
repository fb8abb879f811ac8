import { addLimitOtvetka, delLimitOtvetka, telegramLink } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { TelegramSubscriptions } from './telegram-subscriptions.service';

/** The balance threshold of a wallet and the link to the bot. The token is checked before the body. */
export const telegramSubscriptionsRoutes =
  ({ subscriptions }: { subscriptions: TelegramSubscriptions }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.post(
      addLimitOtvetka.path,
      { ...authFirst, schema: { body: addLimitOtvetka.body, response: { 200: addLimitOtvetka.response } } },
      async (request) => subscriptions.setThreshold(await requireSignedIn(request), request.body.gamesserver_id, request.body.telegram_price),
    );
    app.post(
      delLimitOtvetka.path,
      { ...authFirst, schema: { body: delLimitOtvetka.body, response: { 200: delLimitOtvetka.response } } },
      async (request) => subscriptions.clearThreshold(await requireSignedIn(request), request.body.gamesserver_id),
    );
    app.get(telegramLink.path, { ...authFirst, schema: { response: { 200: telegramLink.response } } }, async (request) =>
      subscriptions.link(await requireSignedIn(request)),
    );
  };
