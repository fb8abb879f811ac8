import { ablyToken, realtimeChannelFor, testAbly } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';
import { requireUser } from '../../plugins/auth';
import { createRealtimeService } from './realtime.service';

export const realtimeRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const service = createRealtimeService(deps);

    app.post(ablyToken.path, { schema: { body: ablyToken.body, response: { 200: ablyToken.response } } }, async (request) => {
      const user = await requireUser(request);
      const { token, expiresAt } = await service.issueToken(user.id);
      return { token, expires_at: expiresAt.toISOString(), channel: realtimeChannelFor(user.id) };
    });

    app.get(testAbly.path, { schema: { response: { 200: testAbly.response } } }, async (request) => {
      const user = await requireUser(request);
      deps.realtime.publish(user.id, 'test', { message: 'Проверка связи: сообщение дошло' });
      return { sent: true as const };
    });
  };
