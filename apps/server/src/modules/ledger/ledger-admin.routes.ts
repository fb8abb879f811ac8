import { adminLedgerAccountEntries, adminLedgerAudit, adminLedgerTotals } from '@adena/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedInAdmin } from '../../plugins/auth';
import type { LedgerAdminService } from './ledger-admin.service';

/** The ledger's views under /api/admin: totals, an account's entries, the audit verdict. */
export const ledgerAdminRoutes =
  ({ ledgerAdmin }: { ledgerAdmin: LedgerAdminService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Before validation: an outsider gets 401/403 whatever they send.
    app.addHook('onRequest', async (request) => void (await requireSignedInAdmin(request)));

    app.get(adminLedgerTotals.path, { schema: { response: { 200: adminLedgerTotals.response } } }, () => ledgerAdmin.totals());

    app.get(
      adminLedgerAccountEntries.path,
      {
        schema: { params: adminLedgerAccountEntries.params, querystring: adminLedgerAccountEntries.query, response: { 200: adminLedgerAccountEntries.response } },
      },
      (request) => ledgerAdmin.accountEntries(request.params.id, request.query.page, request.query.per_page),
    );

    app.get(adminLedgerAudit.path, { schema: { response: { 200: adminLedgerAudit.response } } }, () => ledgerAdmin.audit());
  };
