import type { Db } from '../../db/client';
import { toAuditEntry } from './audit.mapper';
import { type AuditEntry, type AuditFilters, auditRepository as repo, type Queryable } from './audit.repository';

export type { AuditEntry, AuditFilters } from './audit.repository';

/**
 * The operators' audit log. `record` is called inside the transaction of the change it describes,
 * so the log holds a row exactly when the change committed.
 */
export function createAuditService({ db }: { db: Db['kysely'] }) {
  return {
    record(trx: Queryable, entry: AuditEntry) {
      return repo.insert(trx, entry).then(() => undefined);
    },

    async list(f: AuditFilters) {
      const { rows, total } = await repo.list(db, f);
      return { data: rows.map(toAuditEntry), total };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
/** What a service that audits its changes needs of the log. */
export type AuditRecorder = Pick<AuditService, 'record'>;
