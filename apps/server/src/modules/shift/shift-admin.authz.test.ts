import { describeAdminOutsiders } from '../../../test/admin-outsiders';

describeAdminOutsiders(
  "The operators' shift calls",
  ({ requestIds }) => [
    ['POST', `/api/admin/requests/${requestIds[0]}/claim`, {}],
    ['POST', `/api/admin/requests/${requestIds[1]}/release`, {}],
    ['GET', '/api/admin/operators/stats'],
    ['GET', '/api/admin/operators/stats?from=2025-01-01&to=2025-01-31'],
    ['GET', '/api/admin/operators/stats/csv'],
  ],
  5,
);
