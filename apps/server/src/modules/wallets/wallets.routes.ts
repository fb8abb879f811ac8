import { saveNick, wallets } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn, requireSignedInWith } from '../../plugins/auth';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { WalletsService } from './wallets.service';

/** The caller's wallets and the nick of their character on a server. */
export const walletsRoutes =
  ({
    wallets: service,
    twoFactor,
  }: {
    wallets: Pick<WalletsService, 'list' | 'listOnFeed' | 'saveNick'>;
    twoFactor: Pick<TwoFactorService, 'requireStepUp'>;
  }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    // A cached caller's wallets are read in the round trip that confirms their session (decision record 0026).
    app.get(wallets.path, { schema: { response: { 200: wallets.response } } }, async (request) => {
      const { caller, value } = await requireSignedInWith(request, service.listOnFeed);
      return value ?? service.list(caller);
    });

    app.post(saveNick.path, { ...authFirst, schema: { body: saveNick.body, response: { 200: saveNick.response } } }, async (request) => {
      const caller = await requireSignedIn(request);
      const confirmChange = () => twoFactor.requireStepUp(caller, request.headers['x-two-factor-code']);
      return { success: await service.saveNick(caller, { gameServerId: request.body.gamesserver_id, nick: request.body.nick }, confirmChange) };
    });
  };
