import { adminCodeIncidents, adminIncidentResolutions, adminResolveIncident } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { IncidentsService } from './incidents.service';
import type { IncidentsAdminService } from './incidents-admin.service';
import { fromAdminIncidentsQuery } from './incidents.mapper';

/** Operators' incident list, closing an incident with a note, and the notes, under /api/admin. */
export const incidentsAdminRoutes =
  ({ incidents, incidentsAdmin }: { incidents: IncidentsService; incidentsAdmin: IncidentsAdminService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request) => void (await requireSignedInAdmin(request)));

    app.get(
      adminCodeIncidents.path,
      { schema: { querystring: adminCodeIncidents.query, response: { 200: adminCodeIncidents.response } } },
      (request) => incidents.adminList(fromAdminIncidentsQuery(request.query)),
    );

    app.post(
      adminResolveIncident.path,
      { schema: { params: adminResolveIncident.params, body: adminResolveIncident.body, response: { 200: adminResolveIncident.response } } },
      async (request) => ({ success: await incidentsAdmin.resolve(await requireSignedInAdmin(request), request.params.id, request.body.note) }),
    );

    app.get(
      adminIncidentResolutions.path,
      { schema: { querystring: adminIncidentResolutions.query, response: { 200: adminIncidentResolutions.response } } },
      (request) => incidentsAdmin.resolutions(request.query.ids),
    );
  };
