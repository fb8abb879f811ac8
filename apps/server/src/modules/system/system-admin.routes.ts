import { adminCreateGamesserver, adminGamesservers, adminUpdateGamesserver } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { SystemAdminService } from './system-admin.service';

/** The operators' game servers under /api/admin: every server, create, change. */
export const systemAdminRoutes =
  ({ systemAdmin }: { systemAdmin: SystemAdminService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send, never a 422 that
    // describes the body an admin call expects.
    app.addHook('onRequest', async (request) => void (await requireSignedInAdmin(request)));

    app.get(adminGamesservers.path, { schema: { response: { 200: adminGamesservers.response } } }, () => systemAdmin.list());

    app.post(
      adminCreateGamesserver.path,
      { schema: { body: adminCreateGamesserver.body, response: { 200: adminCreateGamesserver.response } } },
      async (request) => ({ success: await systemAdmin.create(await requireSignedInAdmin(request), request.body) }),
    );

    app.put(
      adminUpdateGamesserver.path,
      {
        schema: { params: adminUpdateGamesserver.params, body: adminUpdateGamesserver.body, response: { 200: adminUpdateGamesserver.response } },
      },
      async (request) => ({ success: await systemAdmin.update(await requireSignedInAdmin(request), request.params.id, request.body) }),
    );
  };
