import {
  adminAuditLog,
  adminBlockUser,
  adminCreateGamesserver,
  adminDashboard,
  adminGamesservers,
  adminIncidentResolutions,
  adminLedgerAccountEntries,
  adminLedgerTotals,
  adminResolveIncident,
  adminSetUserAdmin,
  adminSetUserVip,
  adminUnblockUser,
  adminUpdateGamesserver,
  adminUser,
  adminUsers,
} from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';
import { requireAdmin } from '../../plugins/auth';
import { createAdminService } from './admin.service';

const admin = (request: FastifyRequest) => requireAdmin(request);

/**
 * The admin area's own calls under /api/admin (the operators' queue and the ledger audit are the
 * requests module's; code lookup and incidents the codes module's). Thin: schema from the
 * contract, the acting admin, one service call.
 */
export const adminRoutes =
  (deps: Deps): FastifyPluginAsyncZod =>
  async (app) => {
    const service = createAdminService({ db: deps.db.kysely, realtime: deps.realtime, serverList: deps.serverList });

    // Before validation: an outsider gets 401/403 whatever they send, never a 422 that
    // describes the body an admin call expects.
    app.addHook('onRequest', async (request) => {
      await requireAdmin(request);
    });

    app.get(adminGamesservers.path, { schema: { response: { 200: adminGamesservers.response } } }, () => service.listServers());

    app.post(
      adminCreateGamesserver.path,
      { schema: { body: adminCreateGamesserver.body, response: { 200: adminCreateGamesserver.response } } },
      async (request) => ({ success: await service.createServer(await admin(request), request.body) }),
    );

    app.put(
      adminUpdateGamesserver.path,
      {
        schema: { params: adminUpdateGamesserver.params, body: adminUpdateGamesserver.body, response: { 200: adminUpdateGamesserver.response } },
      },
      async (request) => ({ success: await service.updateServer(await admin(request), request.params.id, request.body) }),
    );

    app.get(
      adminUsers.path,
      { schema: { querystring: adminUsers.query, response: { 200: adminUsers.response } } },
      (request) => service.searchUsers({ q: request.query.q, role: request.query.role, page: request.query.page, perPage: request.query.per_page }),
    );

    app.get(adminUser.path, { schema: { params: adminUser.params, response: { 200: adminUser.response } } }, (request) =>
      service.userDetails(request.params.id),
    );

    app.post(
      adminSetUserAdmin.path,
      { schema: { params: adminSetUserAdmin.params, body: adminSetUserAdmin.body, response: { 200: adminSetUserAdmin.response } } },
      async (request) => ({ success: await service.setAdmin(await admin(request), request.params.id, request.body.admin) }),
    );

    app.post(
      adminSetUserVip.path,
      { schema: { params: adminSetUserVip.params, body: adminSetUserVip.body, response: { 200: adminSetUserVip.response } } },
      async (request) => ({ success: await service.setVip(await admin(request), request.params.id, request.body.vip_until) }),
    );

    app.post(
      adminBlockUser.path,
      { schema: { params: adminBlockUser.params, body: adminBlockUser.body, response: { 200: adminBlockUser.response } } },
      async (request) => ({ success: await service.block(await admin(request), request.params.id, request.body.reason) }),
    );

    app.post(
      adminUnblockUser.path,
      { schema: { params: adminUnblockUser.params, body: adminUnblockUser.body, response: { 200: adminUnblockUser.response } } },
      async (request) => ({ success: await service.unblock(await admin(request), request.params.id) }),
    );

    app.post(
      adminResolveIncident.path,
      { schema: { params: adminResolveIncident.params, body: adminResolveIncident.body, response: { 200: adminResolveIncident.response } } },
      async (request) => ({ success: await service.resolveIncident(await admin(request), request.params.id, request.body.note) }),
    );

    app.get(
      adminIncidentResolutions.path,
      { schema: { querystring: adminIncidentResolutions.query, response: { 200: adminIncidentResolutions.response } } },
      (request) => service.incidentResolutions(request.query.ids),
    );

    app.get(adminLedgerTotals.path, { schema: { response: { 200: adminLedgerTotals.response } } }, () => service.ledgerTotals());

    app.get(
      adminLedgerAccountEntries.path,
      {
        schema: { params: adminLedgerAccountEntries.params, querystring: adminLedgerAccountEntries.query, response: { 200: adminLedgerAccountEntries.response } },
      },
      (request) => service.accountEntries(request.params.id, request.query.page, request.query.per_page),
    );

    app.get(adminAuditLog.path, { schema: { querystring: adminAuditLog.query, response: { 200: adminAuditLog.response } } }, (request) =>
      service.auditLog({
        adminId: request.query.admin_id,
        entityType: request.query.entity_type,
        entityId: request.query.entity_id,
        action: request.query.action,
        page: request.query.page,
        perPage: request.query.per_page,
      }),
    );

    app.get(adminDashboard.path, { schema: { response: { 200: adminDashboard.response } } }, () => service.dashboard());
  };
