import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import '../../db/tables/admin';
import '../../db/tables/codes';

type Queryable = Kysely<Database> | Transaction<Database>;

/** Operators' notes that close code incidents. */
export function createIncidentsAdminRepository(db: Kysely<Database>) {
  return {
    transaction: <T>(fn: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(fn),

    incidentExists(trx: Queryable, id: number) {
      return trx.selectFrom('code_incidents').select('id').where('id', '=', id).executeTakeFirst().then(Boolean);
    },

    /** The resolution, or nothing when the incident was already closed. */
    insertResolution(trx: Queryable, v: { incidentId: number; adminId: number; note: string }) {
      return trx
        .insertInto('code_incident_resolutions')
        .values({ incident_id: BigInt(v.incidentId), admin_id: v.adminId, note: v.note })
        .onConflict((oc) => oc.column('incident_id').doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    resolutions(ids: number[]) {
      if (ids.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('code_incident_resolutions')
        .innerJoin('users', 'users.id', 'code_incident_resolutions.admin_id')
        .selectAll('code_incident_resolutions')
        .select('users.name as admin_name')
        .where(
          'incident_id',
          'in',
          ids.map((i) => BigInt(i)),
        )
        .orderBy('incident_id')
        .execute();
    },
  };
}
