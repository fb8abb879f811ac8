import { adminClaimRequest, adminOperatorStats, adminOperatorStatsCsv, adminReleaseRequest } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { ShiftService } from './shift.service';

/** Claims and the shift report under /api/admin (decision record 0023). */
export const shiftAdminRoutes =
  ({ shift }: { shift: Pick<ShiftService, 'claim' | 'release' | 'stats' | 'statsCsv'> }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request: FastifyRequest) => void (await requireSignedInAdmin(request)));

    app.post(
      adminClaimRequest.path,
      { schema: { params: adminClaimRequest.params, body: adminClaimRequest.body, response: { 200: adminClaimRequest.response } } },
      async (request) => shift.claim(await requireSignedInAdmin(request), request.params.id, { renew: request.body?.renew === true }),
    );

    app.post(
      adminReleaseRequest.path,
      { schema: { params: adminReleaseRequest.params, body: adminReleaseRequest.body, response: { 200: adminReleaseRequest.response } } },
      async (request) => shift.release(await requireSignedInAdmin(request), request.params.id),
    );

    app.get(adminOperatorStats.path, { schema: { querystring: adminOperatorStats.query, response: { 200: adminOperatorStats.response } } }, (request) =>
      shift.stats(request.query),
    );

    app.get(adminOperatorStatsCsv.path, { schema: { querystring: adminOperatorStatsCsv.query } }, async (request, reply) => {
      const csv = await shift.statsCsv(request.query);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="operators-${day}.csv"`)
        .send(csv);
    });
  };
