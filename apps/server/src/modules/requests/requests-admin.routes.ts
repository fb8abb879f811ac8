import { adminCompleteRequest, adminDashboard, adminRejectRequest, adminRequests } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { RequestsService } from './requests.service';

/** The operators' queue and dashboard under /api/admin. */
export const requestsAdminRoutes =
  ({ requests: service }: { requests: Pick<RequestsService, 'queue' | 'complete' | 'reject' | 'dashboard'> }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request: FastifyRequest) => void (await requireSignedInAdmin(request)));

    app.get(adminRequests.path, { schema: { querystring: adminRequests.query, response: { 200: adminRequests.response } } }, (request) =>
      service.queue({
        status: request.query.status,
        type: request.query.type,
        gameServerId: request.query.gamesserver_id,
        currencyType: request.query.currency_type,
        claimedBy: request.query.claimed_by,
        page: request.query.page,
        perPage: request.query.per_page,
      }),
    );

    app.post(
      adminCompleteRequest.path,
      { schema: { params: adminCompleteRequest.params, body: adminCompleteRequest.body, response: { 200: adminCompleteRequest.response } } },
      async (request) => service.complete(await requireSignedInAdmin(request), request.params.id, request.body?.comment),
    );

    app.post(
      adminRejectRequest.path,
      { schema: { params: adminRejectRequest.params, body: adminRejectRequest.body, response: { 200: adminRejectRequest.response } } },
      async (request) => service.reject(await requireSignedInAdmin(request), request.params.id, request.body.reason),
    );

    app.get(adminDashboard.path, { schema: { response: { 200: adminDashboard.response } } }, () => service.dashboard());
  };
