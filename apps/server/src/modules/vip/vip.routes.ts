import { vip } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKey } from '../../lib/idempotency';
import { requireSignedIn } from '../../plugins/auth';
import { fromVipBody } from './vip.mapper';
import type { VipService } from './vip.service';

/** POST /api/vip/: months of VIP for coins. The token is checked before the body. */
export const vipRoutes =
  ({ vip: service }: { vip: VipService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };
    app.post(vip.path, { ...authFirst, schema: { body: vip.body, response: { 200: vip.response } } }, async (request) =>
      service.buy(await requireSignedIn(request), fromVipBody(request.body), idempotencyKey(request)),
    );
  };
