import { adminCodeIncidents, adminIncidentResolutions, adminResolveIncident } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAdmin } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { IncidentsService } from './incidents.service';
import type { IncidentsAdminService } from './incidents-admin.service';
import { fromAdminIncidentsQuery } from './incidents.mapper';

const adminCaller = async (request: FastifyRequest): Promise<Caller> => ({ user: await requireAdmin(request), ip: request.ip });

/** Operators' incident list, closing an incident with a note, and the notes, under /api/admin. */
export const incidentsAdminRoutes =
  ({ incidents, incidentsAdmin }: { incidents: IncidentsService; incidentsAdmin: IncidentsAdminService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request) => void (await requireAdmin(request)));

    app.get(
      adminCodeIncidents.path,
      { schema: { querystring: adminCodeIncidents.query, response: { 200: adminCodeIncidents.response } } },
      (request) => incidents.adminList(fromAdminIncidentsQuery(request.query)),
    );

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
