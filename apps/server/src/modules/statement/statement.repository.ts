import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema';

type Q = Kysely<Database>;

/** One entry on one of the owner's wallet accounts, with its transaction and game server. */
export interface StatementRow {
  id: bigint;
  at: Date;
  tx_kind: string;
  ref_type: string | null;
  ref_id: bigint | null;
  /** The gift code's text when the entry is about one code (ref_type 'code'); masked by the mapper. */
  sert: string | null;
  currency_type: 1 | 2;
  amount: bigint;
  balance_after: bigint;
  gamesserver_id: number;
  gamesserver: string;
}

export interface StatementFilter {
  gameServerId?: number;
  currencyType?: 1 | 2;
  /** Entries at or after this instant, and before `until`. */
  since?: Date;
  until?: Date;
}

/**
 * Queries only. The owner is the first condition: the owner's wallets, their wallet accounts, the
 * accounts' entries by (account_id, id). Another user's entries are simply never read.
 */
function entries(db: Q, ownerId: number, f: StatementFilter) {
  let q = db
    .selectFrom('wallets as w')
    .innerJoin('ledger_accounts as a', 'a.wallet_id', 'w.id')
    .innerJoin('ledger_entries as e', 'e.account_id', 'a.id')
    .where('w.user_id', '=', ownerId)
    .where('a.kind', '=', 'wallet');
  if (f.gameServerId !== undefined) q = q.where('w.gamesserver_id', '=', f.gameServerId);
  if (f.currencyType !== undefined) q = q.where('a.currency_type', '=', f.currencyType);
  if (f.since) q = q.where('e.created_at', '>=', f.since);
  if (f.until) q = q.where('e.created_at', '<', f.until);
  return q;
}

/** The columns of a row, from an entry `e` of account `a` of wallet `w`, transaction `t`, server `g`, code `c`. */
const COLUMNS = [
  'c.sert',
  'e.id',
  'e.created_at as at',
  't.kind as tx_kind',
  't.ref_type',
  't.ref_id',
  'a.currency_type',
  'e.amount',
  sql<bigint>`e.balance_after`.as('balance_after'),
  'w.gamesserver_id',
  'g.name as gamesserver',
] as const;

/**
 * The ids of the owner's next `limit` entries after `afterId`, in id order. Each wallet account's
 * entries are read along its (account_id, id) index from `afterId`, at most `limit` of them (a
 * lateral subquery), so a page costs about the same at the start and at the end of a long history.
 */
function nextEntryIds(db: Q, ownerId: number, f: StatementFilter, afterId: bigint | null, limit: number) {
  let owned = db
    .selectFrom('wallets as w')
    .innerJoin('ledger_accounts as a', 'a.wallet_id', 'w.id')
    .where('w.user_id', '=', ownerId)
    .where('a.kind', '=', 'wallet');
  if (f.gameServerId !== undefined) owned = owned.where('w.gamesserver_id', '=', f.gameServerId);
  if (f.currencyType !== undefined) owned = owned.where('a.currency_type', '=', f.currencyType);
  return owned
    .innerJoinLateral(
      (eb) => {
        let e = eb.selectFrom('ledger_entries as le').select('le.id').whereRef('le.account_id', '=', 'a.id');
        if (afterId !== null) e = e.where('le.id', '>', afterId);
        if (f.since) e = e.where('le.created_at', '>=', f.since);
        if (f.until) e = e.where('le.created_at', '<', f.until);
        return e.orderBy('le.id', 'asc').limit(limit).as('e');
      },
      (j) => j.onTrue(),
    )
    .select('e.id')
    .orderBy('e.id', 'asc')
    .limit(limit);
}

export const statementRepository = {
  /**
   * The owner's entries, newest first. `beforeId`: only entries with id <= it (the statement as it stood
   * when its first page was read; the offset and the total count from there). It only narrows the owner's
   * own entries: another user's id picks nothing of theirs. (The CSV reads its own way, csvPage.)
   */
  async page(db: Q, ownerId: number, f: StatementFilter, limit: number, offset: number, beforeId?: bigint) {
    const owned = entries(db, ownerId, f);
    const base = beforeId === undefined ? owned : owned.where('e.id', '<=', beforeId);
    const [rows, count] = await Promise.all([
      base
        .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
        .innerJoin('gamesservers as g', 'g.id', 'w.gamesserver_id')
        .leftJoin('codes as c', (j) => j.on('t.ref_type', '=', 'code').on(sql`c.id`, '=', sql`t.ref_id`))
        .select(COLUMNS)
        .orderBy('e.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as StatementRow[], total: Number(count.n) };
  },

  /**
   * One page of the CSV, oldest first: the owner's next `limit` entries after the entry `afterId`
   * (a keyset on the entry's id, unique and the file's order), or from the first without it. The
   * page's ids are found first, then only those rows are joined to their details.
   */
  async csvPage(db: Q, ownerId: number, f: StatementFilter, afterId: bigint | null, limit: number) {
    const rows = await db
      .selectFrom(nextEntryIds(db, ownerId, f, afterId, limit).as('p'))
      .innerJoin('ledger_entries as e', 'e.id', 'p.id')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .innerJoin('wallets as w', 'w.id', 'a.wallet_id')
      .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
      .innerJoin('gamesservers as g', 'g.id', 'w.gamesserver_id')
      .leftJoin('codes as c', (j) => j.on('t.ref_type', '=', 'code').on(sql`c.id`, '=', sql`t.ref_id`))
      .select(COLUMNS)
      .orderBy('e.id', 'asc')
      .execute();
    return rows as StatementRow[];
  },
};
