import { addLimitOtvetka, delLimitOtvetka, telegramLink, telegramUnlink } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { TelegramSubscriptions } from './telegram-subscriptions.service';

/** The balance threshold of a wallet and the link to the bot. The token is checked before the body. */
export const telegramSubscriptionsRoutes =
  ({ subscriptions, twoFactor }: { subscriptions: TelegramSubscriptions; twoFactor: Pick<TwoFactorService, 'requireRecentStepUp'> }): FastifyPluginAsyncZod =>
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
    app.get(telegramLink.path, { ...authFirst, schema: { response: { 200: telegramLink.response } } }, async (request) => {
      const caller = await requireSignedIn(request);
      // The link ties a chat to the player's balance and request notices: with TOTP on, a stolen session
      // must not tie the thief's chat (a step-up, or one by this session in the last 10 minutes).
      await twoFactor.requireRecentStepUp(caller, request.headers['x-two-factor-code']);
      return subscriptions.link(caller);
    });
    app.delete(telegramUnlink.path, { ...authFirst, schema: { response: { 200: telegramUnlink.response } } }, async (request) =>
      subscriptions.unlink(await requireSignedIn(request)),
    );
  };
