import { saveNick, wallets } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { WalletsService } from './wallets.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip });

/** The caller's wallets and the nick of their character on a server. */
export const walletsRoutes =
  ({ wallets: service }: { wallets: Pick<WalletsService, 'list' | 'saveNick'> }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };

    app.get(wallets.path, { ...authFirst, schema: { response: { 200: wallets.response } } }, async (request) => service.list(await callerOf(request)));

    app.post(saveNick.path, { ...authFirst, schema: { body: saveNick.body, response: { 200: saveNick.response } } }, async (request) => ({
      success: await service.saveNick(await callerOf(request), { gameServerId: request.body.gamesserver_id, nick: request.body.nick }),
    }));
  };
