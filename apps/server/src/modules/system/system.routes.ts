import { gamesservers, health, type PublicConfig, publicConfig } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { SystemService } from './system.service';

export const systemRoutes =
  ({ system, site }: { system: Pick<SystemService, 'health' | 'gameServersJson'>; site: PublicConfig }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(health.path, { schema: { response: { 200: health.response } } }, async () => system.health());

    // The settings' values the web app shows (the contacts page, the brand); read once at start.
    app.get(publicConfig.path, { schema: { response: { 200: publicConfig.response } } }, async () => site);

    // The list is checked against the contract when it is loaded, and sent as ready JSON text.
    app.get(gamesservers.path, async (_request, reply) => reply.type('application/json; charset=utf-8').send(await system.gameServersJson()));
  };
