import { errorMessage, NotReadyBodySchema, ready } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ReadinessService } from './readiness.service';

export const operationsRoutes =
  ({ readiness }: { readiness: Pick<ReadinessService, 'check'> }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(ready.path, { schema: { response: { 200: ready.response, 503: NotReadyBodySchema } } }, async (_request, reply) => {
      const r = await readiness.check();
      reply.header('Cache-Control', 'no-store');
      if (r.ready) return { status: 'ready' as const };
      return reply.status(503).send({ status: r.status, message: errorMessage(r.status === 'draining' ? 'SHUTTING_DOWN' : 'UNAVAILABLE') });
    });
  };
