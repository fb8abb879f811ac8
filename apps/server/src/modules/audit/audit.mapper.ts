import type { AdminAuditEntry } from '@adena/contract';
import { toNumber } from '../../lib/money';
import type { AuditRow } from './audit.repository';

export const toAuditEntry = (r: AuditRow): AdminAuditEntry => ({
  id: toNumber(r.id),
  admin_id: r.admin_id,
  admin_name: r.admin_name,
  admin_email: r.admin_email,
  action: r.action,
  entity_type: r.entity_type,
  entity_id: r.entity_id,
  before: r.before ?? null,
  after: r.after ?? null,
  created_at: r.created_at.toISOString(),
});
