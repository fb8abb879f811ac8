import { adminCancelCode, adminCodeIncidents, adminCodes } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';
import { requireAdmin } from '../../plugins/auth';
import { createCodesAdminService } from './codes-admin.service';

/** Operators' code calls under /api/admin: incidents, a code's whole story, cancel with refund. */
export const codesAdminRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const service = createCodesAdminService({ db: deps.db.kysely, realtime: deps.realtime });
    // Before validation, as in the admin module: an outsider never learns what the body should be.
    const adminFirst = { onRequest: async (request: Parameters<typeof requireAdmin>[0]) => void (await requireAdmin(request)) };

    app.get(
      adminCodeIncidents.path,
      { ...adminFirst, schema: { querystring: adminCodeIncidents.query, response: { 200: adminCodeIncidents.response } } },
      (request) => service.listIncidents(request.query),
    );
    app.get(adminCodes.path, { ...adminFirst, schema: { querystring: adminCodes.query, response: { 200: adminCodes.response } } }, (request) =>
      service.lookup(request.query),
    );
    app.post(
      adminCancelCode.path,
      { ...adminFirst, schema: { params: adminCancelCode.params, body: adminCancelCode.body, response: { 200: adminCancelCode.response } } },
      async (request) => service.cancel(await requireAdmin(request), request.params.id, request.body.reason),
    );
  };
