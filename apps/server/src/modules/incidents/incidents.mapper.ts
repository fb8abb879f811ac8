import type { AdminCodeIncident, Incident } from '@adena/contract';
import { toNumber } from '../../lib/money';
import { maskSert } from '../../lib/sert';
import type { AdminIncidentRow, IncidentState, OwnIncidentRow } from './incidents.repository';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
/** The operators' short form of a user. */
export const toAdminPerson = (id: number, name: string | null, email: string | null) => ({ id, name: name ?? '', email });

/** The wire's "error code": the issuer's own code, so they may read its sert. */
export function toIncident(r: OwnIncidentRow): Incident {
  return {
    id: r.id,
    code_id: r.codeId,
    gamesserver_id: r.gameServerId,
    gamesserver: r.gameServerName,
    nominal: toNumber(r.nominal),
    sert: r.sert,
    code_status: r.codeStatus,
    acknowledged_at: iso(r.acknowledgedAt),
    created_at: iso(r.createdAt)!,
  };
}

export function toAdminIncident(r: AdminIncidentRow): AdminCodeIncident {
  return {
    id: r.id,
    code_id: r.codeId,
    gamesserver_id: r.gameServerId,
    gamesserver: r.gameServerName,
    nominal: toNumber(r.nominal),
    sert: maskSert(r.sert),
    code_status: r.codeStatus,
    issuer: toAdminPerson(r.ownerId, r.ownerName, r.ownerEmail),
    attempted_by: toAdminPerson(r.triedId, r.triedName, r.triedEmail),
    attempt_ip: r.attemptIp,
    acknowledged_at: iso(r.acknowledgedAt),
    created_at: iso(r.createdAt)!,
  };
}

/** The operators' list query in the domain's words. */
export const fromAdminIncidentsQuery = (q: { page: number; per_page: number; state: IncidentState; gamesserver_id?: number; user_id?: number }) => ({
  page: q.page,
  perPage: q.per_page,
  state: q.state,
  gameServerId: q.gamesserver_id,
  ownerId: q.user_id,
});
