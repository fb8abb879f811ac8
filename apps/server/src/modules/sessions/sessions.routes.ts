import { logout, sessionEnd, sessionsEndOthers, sessionsList } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bearerOf } from '../../lib/tokens';
import { requireSignedIn } from '../../plugins/auth';
import type { SessionsService } from './sessions.service';

/** Sign-out, and the caller's own sessions: list, end one, end all others (PRODUCT.md sections 3 and 7). */
export const sessionsRoutes =
  ({ sessions }: { sessions: Pick<SessionsService, 'logout' | 'list' | 'end' | 'endOthers'> }): FastifyPluginAsyncZod =>
  async (app) => {
    // A call without a live session answers 401 before its input is checked (422).
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };
    app.get(logout.path, { schema: { response: { 200: logout.response } } }, async (request) => {
      await sessions.logout(bearerOf(request.headers.authorization));
      return { logout: true as const };
    });

    app.get(sessionsList.path, { schema: { response: { 200: sessionsList.response } } }, async (request) =>
      sessions.list(await requireSignedIn(request)),
    );

    app.delete(sessionEnd.path, { ...authFirst, schema: { params: sessionEnd.params, response: { 200: sessionEnd.response } } }, async (request) => {
      const caller = await requireSignedIn(request);
      return sessions.end(caller, request.params.id);
    });

    app.post(sessionsEndOthers.path, { ...authFirst, schema: { body: sessionsEndOthers.body, response: { 200: sessionsEndOthers.response } } }, async (request) =>
      sessions.endOthers(await requireSignedIn(request)),
    );
  };
