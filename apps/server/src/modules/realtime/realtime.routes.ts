import { ablyToken, testAbly } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { RealtimeService } from './realtime.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip });

/** A token for the caller's socket, and a test message on their channel. */
export const realtimeRoutes =
  ({ realtimeTokens }: { realtimeTokens: RealtimeService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(ablyToken.path, { schema: { body: ablyToken.body, response: { 200: ablyToken.response } } }, async (request) =>
      realtimeTokens.issueToken(await callerOf(request)),
    );

    app.get(testAbly.path, { schema: { response: { 200: testAbly.response } } }, async (request) => realtimeTokens.sendTest(await callerOf(request)));
  };
