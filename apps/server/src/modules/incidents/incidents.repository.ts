import { type Kysely, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import type { Database } from '../../db/schema';

export type IncidentsDb = Kysely<Database>;
export type IncidentsTrx = Transaction<Database>;
type Q = Kysely<Database> | Transaction<Database>;

export type IncidentState = 'open' | 'acknowledged' | 'all';
export interface IncidentFilter {
  codeId?: number;
  state?: IncidentState;
  gameServerId?: number;
  ownerId?: number;
}

/** The operators' rows join the code, its server, its issuer and whoever tried it. */
const adminIncidents = (q: Q) =>
  q
    .selectFrom('code_incidents as i')
    .innerJoin('codes as c', 'c.id', 'i.code_id')
    .innerJoin('gamesservers as g', 'g.id', 'i.gamesserver_id')
    .innerJoin('users as owner', 'owner.id', 'i.user_id')
    .innerJoin('users as tried', 'tried.id', 'i.attempted_by');

/** The newest incidents the owner's list shows; open ones older than these are listed too. */
export const OWN_INCIDENTS_LISTED = 200;

/**
 * Queries only. An incident is a code's issuer being told that someone else tried a code that
 * was no longer active. Every lookup of a user's incidents takes the owner (the issuer) first.
 */
export const incidentsRepository = {
  /**
   * Opens an incident unless this user's tries of this code were told to its owner already (open or
   * acknowledged): the new id or nothing. Once per (code, user): someone holding a used code could otherwise
   * pop the owner's «Повторная активация» dialog again after every acknowledgement.
   */
  async open(
    trx: IncidentsTrx,
    v: { codeId: number; ownerId: number; gameServerId: number; attemptedBy: number; ip: string | null; codeStatus: 'activated' | 'cancelled' },
  ) {
    const { rows } = await sql<{ id: number }>`
      INSERT INTO code_incidents (code_id, user_id, gamesserver_id, attempted_by, attempt_ip, code_status)
      SELECT ${v.codeId}::int, ${v.ownerId}::int, ${v.gameServerId}::int, ${v.attemptedBy}::int, ${v.ip}::text, ${v.codeStatus}::text
       WHERE NOT EXISTS (SELECT FROM code_incidents WHERE code_id = ${v.codeId}::int AND attempted_by = ${v.attemptedBy}::int)
      ON CONFLICT (code_id, attempted_by) WHERE acknowledged_at IS NULL DO NOTHING
      RETURNING id`.execute(trx);
    return rows[0];
  },

  /**
   * The owner's incidents, newest first: the newest `limit`, and every open one however old (the
   * open count counts them all, and each must stay reachable to be acknowledged).
   */
  listOwn(q: Q, ownerId: number, limit = OWN_INCIDENTS_LISTED) {
    const newest = q.selectFrom('code_incidents').select('id').where('user_id', '=', ownerId).orderBy('id', 'desc').limit(limit);
    return q
      .selectFrom('code_incidents as i')
      .innerJoin('codes as c', 'c.id', 'i.code_id')
      .innerJoin('gamesservers as g', 'g.id', 'i.gamesserver_id')
      .select([
        'i.id',
        'i.code_id as codeId',
        'i.gamesserver_id as gameServerId',
        'g.name as gameServerName',
        'c.nominal',
        'c.sert',
        'c.status as codeStatus',
        'i.acknowledged_at as acknowledgedAt',
        'i.created_at as createdAt',
      ])
      .where('i.user_id', '=', ownerId)
      .where((eb) => eb.or([eb('i.acknowledged_at', 'is', null), eb('i.id', 'in', newest)]))
      .orderBy('i.id', 'desc')
      .execute();
  },

  ackOwn(q: Q, ownerId: number, id: number) {
    return q
      .updateTable('code_incidents')
      .set({ acknowledged_at: sql`coalesce(acknowledged_at, now())` })
      .where('user_id', '=', ownerId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
  },

  async countOpenOwn(q: Q, ownerId: number) {
    const r = await q
      .selectFrom('code_incidents')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', ownerId)
      .where('acknowledged_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  },

  /** The operators' view: a page of incidents (or all of them without `page`) and how many match. */
  async listAll(q: Q, filter: IncidentFilter, page?: { limit: number; offset: number }) {
    let query = adminIncidents(q);
    if (filter.codeId !== undefined) query = query.where('i.code_id', '=', filter.codeId);
    if (filter.state === 'open') query = query.where('i.acknowledged_at', 'is', null);
    if (filter.state === 'acknowledged') query = query.where('i.acknowledged_at', 'is not', null);
    if (filter.gameServerId !== undefined) query = query.where('i.gamesserver_id', '=', filter.gameServerId);
    if (filter.ownerId !== undefined) query = query.where('i.user_id', '=', filter.ownerId);
    const total = await query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    let rows = query
      .select([
        'i.id',
        'i.code_id as codeId',
        'i.gamesserver_id as gameServerId',
        'g.name as gameServerName',
        'c.nominal',
        'c.sert',
        'c.status as codeStatus',
        'i.attempt_ip as attemptIp',
        'i.acknowledged_at as acknowledgedAt',
        'i.created_at as createdAt',
        'owner.id as ownerId',
        'owner.name as ownerName',
        'owner.email as ownerEmail',
        'tried.id as triedId',
        'tried.name as triedName',
        'tried.email as triedEmail',
      ])
      .orderBy('i.id', 'desc');
    if (page) rows = rows.limit(page.limit).offset(page.offset);
    return { rows: await rows.execute(), total: Number(total.n) };
  },
};

export type OwnIncidentRow = Awaited<ReturnType<typeof incidentsRepository.listOwn>>[number];
export type AdminIncidentRow = Awaited<ReturnType<typeof incidentsRepository.listAll>>['rows'][number];
