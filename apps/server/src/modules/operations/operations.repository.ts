import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema';

export type OperationsDb = Kysely<Database>;

/** Queries only: the database's pulse and the figures behind the metrics. */
export const operationsRepository = {
  /** One round trip; throws when the database is unreachable. */
  async ping(db: OperationsDb) {
    await sql`SELECT 1`.execute(db);
  },

  /** Deposits and withdrawals waiting for an operator, per game server, direction and currency. */
  pendingRequests(db: OperationsDb) {
    return db
      .selectFrom('balance_requests')
      .select(['gamesserver_id', 'type', 'currency_type', (eb) => eb.fn.countAll<string>().as('n')])
      .where('status', '=', 'pending')
      .groupBy(['gamesserver_id', 'type', 'currency_type'])
      .execute();
  },

  /** Jobs per kind and state (pending and running are the queue's depth; failed are kept). */
  jobs(db: OperationsDb) {
    return db
      .selectFrom('jobs')
      .select(['kind', 'state', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy(['kind', 'state'])
      .execute();
  },

  /** Ledger transactions (movements of value) per kind since the database began. */
  movements(db: OperationsDb) {
    return db
      .selectFrom('ledger_transactions')
      .select(['kind', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy('kind')
      .execute();
  },
};
