import { describeAdminOutsiders } from '../../../test/admin-outsiders';

describeAdminOutsiders("The operators' audit log", () => [['GET', '/api/admin/audit_log']], 1);
