import { gamesservers, health } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';

export const systemRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(health.path, { schema: { response: { 200: health.response } } }, async () => ({
      ok: true as const,
      db: deps.db.kind,
    }));

    // Every page asks for this list; it changes only when an operator edits a server. The
    // answer is checked against the contract once per load and sent as the ready JSON text.
    app.get(gamesservers.path, async (_request, reply) => reply.type('application/json; charset=utf-8').send(await deps.serverList.json()));
  };
