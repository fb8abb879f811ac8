import { logout } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bearerOf } from '../../lib/tokens';
import type { SessionsService } from './sessions.service';

/** Sign-out: ends the session of the bearer only (PRODUCT.md section 3). */
export const sessionsRoutes =
  ({ sessions }: { sessions: Pick<SessionsService, 'logout'> }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(logout.path, { schema: { response: { 200: logout.response } } }, async (request) => {
      await sessions.logout(bearerOf(request.headers.authorization));
      return { logout: true as const };
    });
  };
