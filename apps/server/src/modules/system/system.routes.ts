import { gamesservers, health } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { SystemService } from './system.service';

export const systemRoutes =
  ({ system }: { system: Pick<SystemService, 'health' | 'gameServersJson'> }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(health.path, { schema: { response: { 200: health.response } } }, async () => system.health());

    // The list is checked against the contract when it is loaded, and sent as ready JSON text.
    app.get(gamesservers.path, async (_request, reply) => reply.type('application/json; charset=utf-8').send(await system.gameServersJson()));
  };
