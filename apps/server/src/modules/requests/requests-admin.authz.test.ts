import { describeAdminOutsiders } from '../../../test/admin-outsiders';

describeAdminOutsiders(
  "The operators' queue and dashboard",
  ({ requestIds }) => [
    ['GET', '/api/admin/dashboard'],
    ['GET', '/api/admin/requests?status=pending'],
    ['POST', `/api/admin/requests/${requestIds[0]}/complete`, {}],
    ['POST', `/api/admin/requests/${requestIds[1]}/reject`, { reason: 'чужой отказ' }],
  ],
  4,
);
