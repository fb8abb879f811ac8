import { ackCodeIncident, codeIncidents, getErrorUserCode } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { IncidentsService } from './incidents.service';

/** The issuer's incidents ("error codes"): list, acknowledge, count. The token is checked first. */
export const incidentsRoutes =
  ({ incidents }: { incidents: IncidentsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };

    app.get(codeIncidents.path, { ...authFirst, schema: { response: { 200: codeIncidents.response } } }, async (request) =>
      incidents.list(await requireSignedIn(request)),
    );
    app.post(
      ackCodeIncident.path,
      { ...authFirst, schema: { params: ackCodeIncident.params, response: { 200: ackCodeIncident.response } } },
      async (request) => incidents.ack(await requireSignedIn(request), request.params.id),
    );
    app.get(getErrorUserCode.path, { ...authFirst, schema: { response: { 200: getErrorUserCode.response } } }, async (request) =>
      incidents.countOpen(await requireSignedIn(request)),
    );
  };
