import { describeAdminOutsiders } from '../../../test/admin-outsiders';

describeAdminOutsiders(
  "The ledger's admin views",
  ({ accountId }) => [
    ['GET', '/api/admin/ledger/totals'],
    ['GET', `/api/admin/ledger/accounts/${accountId}/entries`],
    ['GET', '/api/admin/ledger/audit'],
  ],
  3,
);
