import { adminCompleteRequest, adminLedgerAudit, adminRejectRequest, adminRequests } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';
import { requireAdmin } from '../../plugins/auth';
import { createTelegramBot } from '../codes/telegram-bot';
import { auditLedger } from '../ledger/ledger.service';
import { createRequestsService } from './requests.service';

/** The operators' queue and the ledger audit under /api/admin. */
export const requestsAdminRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const service = createRequestsService({ db: deps.db.kysely, realtime: deps.realtime, bot: createTelegramBot(deps.config), log: app.log });
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request: FastifyRequest) => void (await requireAdmin(request)));

    app.get(adminRequests.path, { schema: { querystring: adminRequests.query, response: { 200: adminRequests.response } } }, (request) =>
      service.queue({
        status: request.query.status,
        type: request.query.type,
        gamesserverId: request.query.gamesserver_id,
        currencyType: request.query.currency_type,
        page: request.query.page,
        perPage: request.query.per_page,
      }),
    );

    app.post(
      adminCompleteRequest.path,
      { schema: { params: adminCompleteRequest.params, body: adminCompleteRequest.body, response: { 200: adminCompleteRequest.response } } },
      async (request) => service.complete(await requireAdmin(request), request.params.id, request.body?.comment),
    );

    app.post(
      adminRejectRequest.path,
      { schema: { params: adminRejectRequest.params, body: adminRejectRequest.body, response: { 200: adminRejectRequest.response } } },
      async (request) => service.reject(await requireAdmin(request), request.params.id, request.body.reason),
    );

    app.get(adminLedgerAudit.path, { schema: { response: { 200: adminLedgerAudit.response } } }, () => auditLedger(deps.db.kysely));
  };
