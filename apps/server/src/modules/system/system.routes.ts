import { gamesservers, health } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';
import { toGamesserver } from './system.mapper';
import { createSystemRepository } from './system.repository';

export const systemRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const repo = createSystemRepository(deps.db.kysely);

    app.get(health.path, { schema: { response: { 200: health.response } } }, async () => ({
      ok: true as const,
      db: deps.db.kind,
    }));

    app.get(gamesservers.path, { schema: { response: { 200: gamesservers.response } } }, async () => {
      const [servers, medians] = await Promise.all([repo.listActiveServers(), repo.medianProcessingMinutes()]);
      return servers.map((s) => toGamesserver(s, medians.get(s.id) ?? null));
    });
  };
