import { ablyToken, testAbly } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { RealtimeService } from './realtime.service';

/** A token for the caller's socket, and a test message on their channel. */
export const realtimeRoutes =
  ({ realtimeTokens }: { realtimeTokens: RealtimeService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(ablyToken.path, { schema: { body: ablyToken.body, response: { 200: ablyToken.response } } }, async (request) =>
      realtimeTokens.issueToken(await requireSignedIn(request)),
    );

    app.get(testAbly.path, { schema: { response: { 200: testAbly.response } } }, async (request) => realtimeTokens.sendTest(await requireSignedIn(request)));
  };
