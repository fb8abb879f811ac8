import { readSnapshot } from '../../db/snapshot';
import { AppError } from '../../lib/app-error';
import type { Caller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { toAdminIncident, toIncident } from './incidents.mapper';
import { type IncidentState, type IncidentsDb, type IncidentsTrx, incidentsRepository as repo } from './incidents.repository';

/** A try of a code that was no longer active, by someone other than its activator. */
export interface FailedActivation {
  codeId: number;
  ownerId: number;
  gameServerId: number;
  attemptedBy: number;
  ip: string | null;
  codeStatus: 'activated' | 'cancelled';
}

/**
 * Incidents ("error codes" on the wire): the issuer of a code learns that someone tried it after
 * it was activated or cancelled. Opened by the codes module inside its activation transaction;
 * the issuer lists, counts and acknowledges them; operators list them all.
 */
export function createIncidentsService({ db }: { db: IncidentsDb }) {
  return {
    /** In the activation's transaction: at most one open incident per code and person; its id or null. */
    async openOnFailedActivation(trx: IncidentsTrx, v: FailedActivation): Promise<number | null> {
      return (await repo.open(trx, v))?.id ?? null;
    },

    async list(caller: Caller) {
      return (await repo.listOwn(db, caller.user.id)).map(toIncident);
    },

    async ack(caller: Caller, id: number) {
      // Under the owner's row with the session checked: a thief's ack that waited while the owner's password change or a
      // block ended his session must not hide the owner's «Повторная активация» after it.
      const row = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        return repo.ackOwn(trx, caller.user.id, id);
      });
      if (!row) throw new AppError('NOT_FOUND', { message: 'Уведомление о повторной активации не найдено' });
      return { success: row.id };
    },

    async countOpen(caller: Caller) {
      return { error_codes_count: await repo.countOpenOwn(db, caller.user.id) };
    },

    async adminList(q: { page: number; perPage: number; state: IncidentState; gameServerId?: number; ownerId?: number }) {
      // The page and its count in one snapshot: an incident recorded or acknowledged between them made them disagree.
      const { rows, total } = await readSnapshot(db, (s) =>
        repo.listAll(s, { state: q.state, gameServerId: q.gameServerId, ownerId: q.ownerId }, { limit: q.perPage, offset: (q.page - 1) * q.perPage }),
      );
      return { data: rows.map(toAdminIncident), total };
    },

    /** Every incident of one code, for the operators' code lookup. */
    async adminOfCode(codeId: number) {
      return (await repo.listAll(db, { codeId })).rows.map(toAdminIncident);
    },
  };
}

export type IncidentsService = ReturnType<typeof createIncidentsService>;
