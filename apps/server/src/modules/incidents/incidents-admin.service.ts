import type { IncidentResolution } from '@adena/contract';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { toNumber } from '../../lib/money';
import type { AuditRecorder } from '../audit/audit.service';
import type { Caller } from '../sessions/caller';
import { createIncidentsAdminRepository } from './incidents-admin.repository';

const toResolution = (r: { incident_id: bigint; note: string; admin_id: number; resolved_at: Date }, adminName: string): IncidentResolution => ({
  incident_id: toNumber(r.incident_id),
  note: r.note,
  resolved_by: r.admin_id,
  resolved_by_name: adminName,
  resolved_at: r.resolved_at.toISOString(),
});

/** An operator closes a code incident once, with a note; the note and its audit-log row commit together. */
export function createIncidentsAdminService({ db, audit }: { db: Db['kysely']; audit: AuditRecorder }) {
  const repo = createIncidentsAdminRepository(db);

  return {
    async resolve(caller: Caller, incidentId: number, note: string) {
      const resolution = await repo.transaction(async (trx) => {
        // Read inside the transaction: PGlite has one connection.
        if (!(await repo.incidentExists(trx, incidentId))) throw new AppError('NOT_FOUND', { message: 'Инцидент не найден' });
        const inserted = await repo.insertResolution(trx, { incidentId, adminId: caller.user.id, note });
        if (!inserted) throw new AppError('CONFLICT', { message: 'Инцидент уже закрыт' });
        await audit.record(trx, {
          adminId: caller.user.id,
          sessionId: caller.sessionId,
          action: 'code_incident.resolve',
          entityType: 'code_incident',
          entityId: incidentId,
          before: null,
          after: { note },
        });
        return inserted;
      });
      return toResolution(resolution, caller.user.name);
    },

    async resolutions(ids: number[]) {
      const rows = await repo.resolutions([...new Set(ids)]);
      return rows.map((r) => toResolution(r, r.admin_name));
    },
  };
}

export type IncidentsAdminService = ReturnType<typeof createIncidentsAdminService>;
