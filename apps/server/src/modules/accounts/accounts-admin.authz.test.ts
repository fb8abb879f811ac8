import { describeAdminOutsiders } from '../../../test/admin-outsiders';

describeAdminOutsiders(
  "The operators' user calls",
  ({ player, victim }) => [
    ['GET', '/api/admin/users?q=a'],
    ['GET', `/api/admin/users/${victim.id}`],
    ['POST', `/api/admin/users/${player.id}/admin`, { admin: true }],
    ['POST', `/api/admin/users/${player.id}/vip`, { vip_until: new Date(Date.now() + 86_400_000).toISOString() }],
    ['POST', `/api/admin/users/${victim.id}/block`, { reason: 'чужой' }],
    ['POST', `/api/admin/users/${victim.id}/unblock`, {}],
    ['POST', `/api/admin/users/${victim.id}/two_factor_off`, { reason: 'чужой' }],
  ],
  7,
);
