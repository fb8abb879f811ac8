import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AdminAuditLogTable, Database } from '../../db/schema';

/** A transaction of the change being audited, or the database for a read. */
export type Queryable = Kysely<Database> | Transaction<Database>;

export interface AuditEntry {
  adminId: number;
  /**
   * The session the act came with (the caller's `sessionId`), for `record`'s last check: ended meanwhile, the act is
   * refused. Not stored. Left out where the act's own first lock already checked it (shift's holdOperator).
   */
  sessionId?: number | null;
  action: string;
  entityType: string;
  entityId: string | number;
  /** The record before and after the change, as JSON; null where there is none. */
  before: unknown;
  after: unknown;
}

export interface AuditFilters {
  adminId?: number;
  entityType?: string;
  entityId?: string;
  action?: string;
  /** Only entries with id <= this: the list as it stood when its first page was read (page and total count from here). */
  beforeId?: number;
  page: number;
  perPage: number;
}

export type AuditRow = Selectable<AdminAuditLogTable> & { admin_name: string; admin_email: string | null };

/** The operators' audit log: the only code that writes its rows. */
export const auditRepository = {
  /** The acting operator's row, share-locked to the end of the change's transaction. */
  holdActor(trx: Queryable, adminId: number) {
    return trx.selectFrom('users').select(['admin', 'blocked_at']).where('id', '=', adminId).forShare().executeTakeFirst();
  },

  insert(trx: Queryable, a: AuditEntry) {
    return trx
      .insertInto('admin_audit_log')
      .values({
        admin_id: a.adminId,
        action: a.action,
        entity_type: a.entityType,
        entity_id: String(a.entityId),
        before: a.before === null ? null : JSON.stringify(a.before),
        after: a.after === null ? null : JSON.stringify(a.after),
      })
      .execute();
  },

  async list(db: Queryable, f: AuditFilters) {
    let q = db.selectFrom('admin_audit_log').innerJoin('users', 'users.id', 'admin_audit_log.admin_id');
    if (f.adminId !== undefined) q = q.where('admin_audit_log.admin_id', '=', f.adminId);
    if (f.entityType) q = q.where('admin_audit_log.entity_type', '=', f.entityType);
    if (f.entityId) q = q.where('admin_audit_log.entity_id', '=', f.entityId);
    if (f.action) q = q.where('admin_audit_log.action', '=', f.action);
    if (f.beforeId !== undefined) q = q.where('admin_audit_log.id', '<=', BigInt(f.beforeId));
    const [rows, count] = await Promise.all([
      q
        .selectAll('admin_audit_log')
        .select(['users.name as admin_name', 'users.email as admin_email'])
        .orderBy('admin_audit_log.id', 'desc')
        .limit(f.perPage)
        .offset((f.page - 1) * f.perPage)
        .execute(),
      q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as AuditRow[], total: Number(count.n) };
  },
};
