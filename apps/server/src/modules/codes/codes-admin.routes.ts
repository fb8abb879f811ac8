import { adminCancelCode, adminCodes } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { CodesAdminService } from './codes-admin.service';

/** Operators' code calls under /api/admin: a code's whole story, cancel with refund. */
export const codesAdminRoutes =
  ({ codesAdmin }: { codesAdmin: CodesAdminService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation, as in the admin module: an outsider never learns what the body should be.
    const adminFirst = { onRequest: async (request: Parameters<typeof requireSignedInAdmin>[0]) => void (await requireSignedInAdmin(request)) };

    app.get(adminCodes.path, { ...adminFirst, schema: { querystring: adminCodes.query, response: { 200: adminCodes.response } } }, (request) =>
      codesAdmin.lookup(request.query),
    );
    app.post(
      adminCancelCode.path,
      { ...adminFirst, schema: { params: adminCancelCode.params, body: adminCancelCode.body, response: { 200: adminCancelCode.response } } },
      async (request) => codesAdmin.cancel(await requireSignedInAdmin(request), request.params.id, request.body.reason),
    );
  };
