import { adminAuditLog } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { AuditService } from './audit.service';

/** The operators' audit log under /api/admin, newest first. */
export const auditAdminRoutes =
  ({ audit }: { audit: Pick<AuditService, 'list'> }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request) => void (await requireSignedInAdmin(request)));

    app.get(adminAuditLog.path, { schema: { querystring: adminAuditLog.query, response: { 200: adminAuditLog.response } } }, (request) =>
      audit.list({
        adminId: request.query.admin_id,
        entityType: request.query.entity_type,
        entityId: request.query.entity_id,
        action: request.query.action,
        beforeId: request.query.before_id,
        page: request.query.page,
        perPage: request.query.per_page,
      }),
    );
  };
