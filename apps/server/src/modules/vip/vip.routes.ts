import { vip } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKey } from '../../lib/idempotency';
import { requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import { fromVipBody } from './vip.mapper';
import type { VipService } from './vip.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip ?? null });

/** POST /api/vip/: months of VIP for coins. The token is checked before the body. */
export const vipRoutes =
  ({ vip: service }: { vip: VipService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };
    app.post(vip.path, { ...authFirst, schema: { body: vip.body, response: { 200: vip.response } } }, async (request) =>
      service.buy(await callerOf(request), fromVipBody(request.body), idempotencyKey(request)),
    );
  };
