import { adminCodeIncidents } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAdmin } from '../../plugins/auth';
import { fromAdminIncidentsQuery } from './incidents.mapper';
import type { IncidentsService } from './incidents.service';

/**
 * Operators' incident list under /api/admin. Closing an incident (its resolution note) is still the
 * admin module's call (/api/admin/code_incidents/:id/resolve).
 */
export const incidentsAdminRoutes =
  ({ incidents }: { incidents: IncidentsService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation, as in the admin module: an outsider never learns what the query should be.
    const adminFirst = { onRequest: async (request: Parameters<typeof requireAdmin>[0]) => void (await requireAdmin(request)) };

    app.get(
      adminCodeIncidents.path,
      { ...adminFirst, schema: { querystring: adminCodeIncidents.query, response: { 200: adminCodeIncidents.response } } },
      (request) => incidents.adminList(fromAdminIncidentsQuery(request.query)),
    );
  };
