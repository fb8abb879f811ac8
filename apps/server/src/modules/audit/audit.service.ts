import type { Db } from '../../db/client';
import { readSnapshot } from '../../db/snapshot';
import { AppError } from '../../lib/app-error';
import type { Caller } from '../sessions/caller';
import { sessionStillLive } from '../sessions/live-session';
import { toAuditEntry } from './audit.mapper';
import { type AuditEntry, type AuditFilters, auditRepository as repo, type Queryable } from './audit.repository';

export type { AuditEntry, AuditFilters } from './audit.repository';

/**
 * The operators' audit log. `record` is called inside the transaction of the change it describes,
 * so the log holds a row exactly when the change committed.
 */
export function createAuditService({ db }: { db: Db['kysely'] }) {
  async function holdActor(trx: Queryable, adminId: number, sessionId?: number | null) {
    const actor = await repo.holdActor(trx, adminId);
    if (!actor?.admin || actor.blocked_at) throw new AppError('FORBIDDEN');
    if (sessionId != null && !(await sessionStillLive(trx, { sessionId }))) throw new AppError('FORBIDDEN');
  }

  return {
    /**
     * Also the last check of every operator's act: the operator's row is share-locked and must still be
     * an unblocked admin, or the whole change is refused (403) and rolls back. A block or demotion
     * writes that row first, so an act that was waiting on another lock meanwhile (a code's cancel, an
     * incident's close, a server's settings) either commits before it or is refused after it. So does
     * support's TOTP rescue of the operator, or their password change, which end their sessions in the
     * transaction that holds the row: with `sessionId`, an act whose session ended meanwhile is refused too.
     */
    async record(trx: Queryable, entry: AuditEntry) {
      await holdActor(trx, entry.adminId, entry.sessionId);
      await repo.insert(trx, entry);
    },

    /**
     * The same check as the act's first lock, for an act that then locks a player's wallet (a code's cancel with its
     * refund): the operator's row is taken before the wallet, the order of every operator's act (users, then what they
     * change). Taken only at `record`, after the wallet, it closed a cycle with the same operator's change of that
     * player (which holds the operator's row and waits for the player's) and a completion of the player's request
     * (which holds the player's row and waits for the wallet): one of the three answered 503.
     */
    hold: (trx: Queryable, caller: Caller) => holdActor(trx, caller.user.id, caller.sessionId),

    async list(f: AuditFilters) {
      const { rows, total } = await readSnapshot(db, (s) => repo.list(s, f));
      return { data: rows.map(toAuditEntry), total };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
/** What a service that audits its changes needs of the log. */
export type AuditRecorder = Pick<AuditService, 'record' | 'hold'>;
