import { adminIncidentResolutions, adminResolveIncident } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAdmin } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { IncidentsAdminService } from './incidents-admin.service';

const adminCaller = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireAdmin(request), ip: request.ip });

/** Operators close code incidents with a note under /api/admin, and read the notes back. */
export const incidentsAdminRoutes =
  ({ incidentsAdmin }: { incidentsAdmin: IncidentsAdminService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request) => void (await requireAdmin(request)));

    app.post(
      adminResolveIncident.path,
      { schema: { params: adminResolveIncident.params, body: adminResolveIncident.body, response: { 200: adminResolveIncident.response } } },
      async (request) => ({ success: await incidentsAdmin.resolve(await adminCaller(request), request.params.id, request.body.note) }),
    );

    app.get(
      adminIncidentResolutions.path,
      { schema: { querystring: adminIncidentResolutions.query, response: { 200: adminIncidentResolutions.response } } },
      (request) => incidentsAdmin.resolutions(request.query.ids),
    );
  };
