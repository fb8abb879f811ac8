import {
  adminBlockUser,
  adminSetUserAdmin,
  adminSetUserVip,
  adminUnblockUser,
  adminUser,
  adminUsers,
  adminUserTwoFactorOff,
  TWO_FACTOR_MESSAGES,
} from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/app-error';
import { gaveCodeThisRequest, requireSignedInAdmin } from '../../plugins/auth';
import type { Caller } from '../sessions/caller';
import type { TwoFactorService } from '../two-factor/two-factor.service';
import type { AccountsAdminService } from './accounts-admin.service';

/** Operators' user calls under /api/admin: search, a user's card, admin flag, VIP, block. */
export const accountsAdminRoutes =
  ({ accountsAdmin: service, twoFactor }: { accountsAdmin: AccountsAdminService; twoFactor: Pick<TwoFactorService, 'requireStepUp'> }): FastifyPluginAsyncZod =>
  async (app) => {
    /**
     * The operator's own TOTP code for an act a stolen operator session must not do alone; an operator
     * without TOTP (ADMIN_REQUIRE_2FA=false) cannot do it at all. (A session showing the code for the first
     * time gave it to requireSignedInAdmin already: one code, one use.)
     */
    const requireOwnCode = async (request: FastifyRequest, caller: Caller) => {
      if (!caller.user.totp_secret) {
        throw new AppError('FORBIDDEN', { message: TWO_FACTOR_MESSAGES.setupRequired, body: { two_factor_setup_required: true } });
      }
      if (!gaveCodeThisRequest(request)) await twoFactor.requireStepUp(caller, request.headers['x-two-factor-code']);
    };

    // Before validation: an outsider gets 401/403 whatever they send, never a 422 that
    // describes the body an admin call expects.
    app.addHook('onRequest', async (request) => void (await requireSignedInAdmin(request)));

    app.get(adminUsers.path, { schema: { querystring: adminUsers.query, response: { 200: adminUsers.response } } }, (request) =>
      service.search({
        q: request.query.q,
        role: request.query.role,
        beforeId: request.query.before_id,
        page: request.query.page,
        perPage: request.query.per_page,
      }),
    );

    app.get(adminUser.path, { schema: { params: adminUser.params, response: { 200: adminUser.response } } }, (request) =>
      service.card(request.params.id),
    );

    app.post(
      adminSetUserAdmin.path,
      { schema: { params: adminSetUserAdmin.params, body: adminSetUserAdmin.body, response: { 200: adminSetUserAdmin.response } } },
      async (request) => {
        const caller = await requireSignedInAdmin(request);
        // Making an operator is for good (the new one's own TOTP does the rest): a stolen operator session
        // alone must not do it, so it takes the operator's own code, as turning a player's TOTP off does.
        if (request.body.admin) await requireOwnCode(request, caller);
        return { success: await service.setAdmin(caller, request.params.id, request.body.admin) };
      },
    );

    app.post(
      adminSetUserVip.path,
      { schema: { params: adminSetUserVip.params, body: adminSetUserVip.body, response: { 200: adminSetUserVip.response } } },
      async (request) => ({ success: await service.setVip(await requireSignedInAdmin(request), request.params.id, request.body.vip_until) }),
    );

    app.post(
      adminBlockUser.path,
      { schema: { params: adminBlockUser.params, body: adminBlockUser.body, response: { 200: adminBlockUser.response } } },
      async (request) => ({ success: await service.block(await requireSignedInAdmin(request), request.params.id, request.body.reason, request.body.revoke_keys) }),
    );

    app.post(
      adminUserTwoFactorOff.path,
      { schema: { params: adminUserTwoFactorOff.params, body: adminUserTwoFactorOff.body, response: { 200: adminUserTwoFactorOff.response } } },
      async (request) => {
        const caller = await requireSignedInAdmin(request);
        // A stolen operator session alone must not strip a player's second factor.
        await requireOwnCode(request, caller);
        return { success: await service.turnOffTwoFactor(caller, request.params.id, request.body.reason) };
      },
    );

    app.post(
      adminUnblockUser.path,
      { schema: { params: adminUnblockUser.params, body: adminUnblockUser.body, response: { 200: adminUnblockUser.response } } },
      async (request) => {
        const caller = await requireSignedInAdmin(request);
        // The admin flag stays on a blocked operator: bringing one back is making an operator again, so the
        // service asks for the operator's own code when the user is one (a player is unblocked without it).
        return { success: await service.unblock(caller, request.params.id, () => requireOwnCode(request, caller)) };
      },
    );
  };
