import { ackCodeIncident, codeIncidents, getErrorUserCode } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireUser } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { IncidentsService } from './incidents.service';

const callerOf = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireUser(request), ip: request.ip ?? null });

/** The issuer's incidents ("error codes"): list, acknowledge, count. The token is checked first. */
export const incidentsRoutes =
  ({ incidents }: { incidents: IncidentsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireUser(request)) };

    app.get(codeIncidents.path, { ...authFirst, schema: { response: { 200: codeIncidents.response } } }, async (request) =>
      incidents.list(await callerOf(request)),
    );
    app.post(
      ackCodeIncident.path,
      { ...authFirst, schema: { params: ackCodeIncident.params, response: { 200: ackCodeIncident.response } } },
      async (request) => incidents.ack(await callerOf(request), request.params.id),
    );
    app.get(getErrorUserCode.path, { ...authFirst, schema: { response: { 200: getErrorUserCode.response } } }, async (request) =>
      incidents.countOpen(await callerOf(request)),
    );
  };
