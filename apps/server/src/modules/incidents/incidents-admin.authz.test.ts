import { describeAdminOutsiders } from '../../../test/admin-outsiders';

describeAdminOutsiders(
  "The operators' incident calls",
  () => [
    ['POST', '/api/admin/code_incidents/1/resolve', { note: 'чужая заметка' }],
    ['GET', '/api/admin/incident_resolutions?ids=1,2'],
  ],
  2,
);
