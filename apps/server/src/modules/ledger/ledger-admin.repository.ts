import { type Kysely, sql } from 'kysely';
import type { Database, LedgerAccountKind } from '../../db/schema';
import { readSnapshot } from '../../db/snapshot';

export type ServiceAccountKind = Exclude<LedgerAccountKind, 'wallet'>;

/** The ledger as operators read it. Admins see every account, so none of these is owner-scoped. */
export function createLedgerAdminRepository(db: Kysely<Database>) {
  const snapshot = <T>(fn: (q: Kysely<Database>) => Promise<T>) => readSnapshot(db, fn);

  return {
    /**
     * `fn`'s reads see one moment of the database (REPEATABLE READ, read-only): the totals' three reads
     * must not straddle a movement that commits between them. Under the pool's usual statement limit.
     */
    snapshot,

    /**
     * The audit's reads: a snapshot without the pool's statement limit (db/client.ts), as they scan the
     * whole ledger, which only grows, and an operator asked for them.
     */
    wholeLedger<T>(fn: (q: Kysely<Database>) => Promise<T>) {
      return snapshot(async (trx) => {
        await sql`SET LOCAL statement_timeout = 0`.execute(trx);
        return fn(trx);
      });
    },

    /** Every game server, inactive ones too, in the players' order. */
    gameServers(q: Kysely<Database> = db) {
      return q.selectFrom('gamesservers').select(['id', 'name']).orderBy('sort_order').orderBy('id').execute();
    },

    // The sums below stay numeric and come as text: summed over many wallets or entries they may pass
    // 2^63 − 1, where a ::bigint cast fails (22003) and the whole screen answered 500. The mapper holds
    // each figure at the largest amount the contract carries (toFigure).

    async serviceTotals(q: Kysely<Database> = db) {
      const r = await sql<{ gamesserver_id: number; currency_type: 1 | 2; kind: ServiceAccountKind; account_id: number; total: string }>`
        SELECT a.gamesserver_id, a.currency_type, a.kind, a.id AS account_id,
               coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)::text AS total
        FROM ledger_accounts a WHERE a.kind <> 'wallet'`.execute(q);
      return r.rows.map((a) => ({ ...a, total: BigInt(a.total) }));
    },

    async walletTotals(q: Kysely<Database> = db) {
      const r = await sql<{ gamesserver_id: number; balance: string; balance_second: string }>`
        SELECT gamesserver_id, coalesce(sum(balance), 0)::text AS balance, coalesce(sum(balance_second), 0)::text AS balance_second
        FROM wallets GROUP BY gamesserver_id`.execute(q);
      return r.rows.map((w) => ({ ...w, balance: BigInt(w.balance), balance_second: BigInt(w.balance_second) }));
    },

    async account(id: number, q: Kysely<Database> = db) {
      const a = await q
        .selectFrom('ledger_accounts')
        .innerJoin('gamesservers', 'gamesservers.id', 'ledger_accounts.gamesserver_id')
        .leftJoin('wallets', 'wallets.id', 'ledger_accounts.wallet_id')
        .selectAll('ledger_accounts')
        .select(['gamesservers.name as gamesserver', 'wallets.user_id'])
        .select(sql<string>`coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = ledger_accounts.id), 0)::text`.as('balance'))
        .where('ledger_accounts.id', '=', id)
        .executeTakeFirst();
      return a && { ...a, balance: BigInt(a.balance) };
    },

    /** A page of the account's entries and their count; in `q`'s snapshot with the account's balance (the service). */
    async accountEntries(accountId: number, page: number, perPage: number, q: Kysely<Database> = db) {
      const [rows, count] = await Promise.all([
        entriesQuery(q)
          .where('ledger_entries.account_id', '=', accountId)
          .orderBy('ledger_entries.id', 'desc')
          .limit(perPage)
          .offset((page - 1) * perPage)
          .execute(),
        q
          .selectFrom('ledger_entries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    /** The newest entries on any wallet of the user. */
    userEntries(userId: number, limit: number, q: Kysely<Database> = db) {
      return entriesQuery(q)
        .innerJoin('wallets', 'wallets.id', 'ledger_accounts.wallet_id')
        .where('wallets.user_id', '=', userId)
        .orderBy('ledger_entries.id', 'desc')
        .limit(limit)
        .execute();
    },
  };
}

export type LedgerAdminRepository = ReturnType<typeof createLedgerAdminRepository>;
export type EntryRow = Awaited<ReturnType<LedgerAdminRepository['userEntries']>>[number];
export type AccountRow = NonNullable<Awaited<ReturnType<LedgerAdminRepository['account']>>>;

function entriesQuery(db: Kysely<Database>) {
  return db
    .selectFrom('ledger_entries')
    .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_entries.transaction_id')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
    .select([
      'ledger_entries.id',
      'ledger_entries.transaction_id',
      'ledger_transactions.kind as transaction_kind',
      'ledger_transactions.ref_type',
      'ledger_transactions.ref_id',
      'ledger_transactions.actor_user_id',
      'ledger_entries.account_id',
      'ledger_accounts.key as account_key',
      'ledger_accounts.gamesserver_id',
      'ledger_accounts.currency_type',
      'ledger_entries.amount',
      'ledger_entries.balance_after',
      'ledger_entries.created_at',
    ]);
}
