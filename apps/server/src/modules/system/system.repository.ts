import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, GamesserversTable, UsersTable } from '../../db/schema';

/** The advisory lock the demo servers' seed takes (any number no other lock of the app uses). */
const SEED_LOCK = 482_133_902;

type Queryable = Kysely<Database> | Transaction<Database>;

export type GameServerRow = Selectable<GamesserversTable>;
/** A server's settings as its row takes them (JSON columns as text). */
export interface GameServerValues {
  name: string;
  active: boolean;
  sort_order: number;
  cashier_nick: string;
  limits: string;
  code_fee_bp: number;
  vip_code_fee_bp: number;
  min_nominal: number;
  standard_nominals: string;
  vip_price: number;
  vip_period_days: number;
}

/** Game servers: the public list, the operators' edits, the seed. */
export function createSystemRepository(db: Kysely<Database>) {
  return {
    transaction: <T>(fn: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(fn),

    listActiveServers() {
      return db.selectFrom('gamesservers').selectAll().where('active', '=', true).orderBy('sort_order').orderBy('id').execute();
    },

    /** Every server, inactive ones too, in the players' order. */
    listServers() {
      return db.selectFrom('gamesservers').selectAll().orderBy('sort_order').orderBy('id').execute();
    },

    /** Median minutes from a request's creation to an operator finishing it, per server, last 24 hours. */
    async medianProcessingMinutes(): Promise<Map<number, number>> {
      const rows = await sql<{ gamesserver_id: number; minutes: number }>`
        SELECT gamesserver_id,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - created_at)) / 60 AS minutes
        FROM balance_requests
        WHERE status IN ('completed', 'rejected') AND processed_at > now() - interval '24 hours'
        GROUP BY gamesserver_id`.execute(db);
      return new Map(rows.rows.map((r) => [r.gamesserver_id, Math.max(1, Math.round(Number(r.minutes)))]));
    },

    /**
     * The server's row, against another save, to the end of the transaction. FOR NO KEY UPDATE, not FOR UPDATE:
     * every write that refers to the server (a wallet, a code, a ledger entry, an incident, a notice; a second
     * update of a credited wallet re-checks its key) takes FOR KEY SHARE on this row, and FOR UPDATE made them all
     * wait for the save. A completion crediting a player's wallet there, holding the player's row that the same
     * operator's VIP change or block waited for, closed a cycle with a save waiting for that operator's row (503).
     */
    lockServer(trx: Queryable, id: number) {
      return trx.selectFrom('gamesservers').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
    },
    serverNameTaken(trx: Queryable, name: string, exceptId?: number) {
      let q = trx.selectFrom('gamesservers').select('id').where(sql<boolean>`nick_fold(name) = nick_fold(${name})`);
      if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
      return q.executeTakeFirst().then(Boolean);
    },
    insertServer(trx: Queryable, values: GameServerValues) {
      return trx.insertInto('gamesservers').values(values).returningAll().executeTakeFirstOrThrow();
    },
    /**
     * Writes only the settings given (those that changed): an UPDATE that sets `name`, even to the same value,
     * takes the key lock of its unique index, and a save must not (see lockServer). A rename does, briefly.
     */
    updateServer(trx: Queryable, id: number, changes: Partial<GameServerValues>) {
      return trx
        .updateTable('gamesservers')
        .set({ ...changes, updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** Inserts the servers only into a database that has none; answers how many it inserted. */
    insertServersIfNone(values: Insertable<GamesserversTable>[]) {
      return db.transaction().execute(async (trx) => {
        // Two processes starting together on an empty database (compose starts its replicas at once):
        // the second waits here and then sees the first one's servers, instead of failing on their names.
        await sql`SELECT pg_advisory_xact_lock(${SEED_LOCK})`.execute(trx);
        const any = await trx.selectFrom('gamesservers').select('id').limit(1).executeTakeFirst();
        if (any) return 0;
        await trx.insertInto('gamesservers').values(values).execute();
        return values.length;
      });
    },

    /** The admin of the settings: created, or brought up to date (password, admin flag, unblocked). */
    upsertAdmin(v: Pick<Insertable<UsersTable>, 'email' | 'password_hash' | 'name'>) {
      return db
        .insertInto('users')
        .values({ ...v, admin: true })
        .onConflict((oc) => oc.column('email').doUpdateSet({ password_hash: v.password_hash, admin: true, blocked_at: null, updated_at: new Date() }))
        .execute();
    },
  };
}

export type SystemRepository = ReturnType<typeof createSystemRepository>;
