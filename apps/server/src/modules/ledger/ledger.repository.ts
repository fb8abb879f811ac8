import { sql } from 'kysely';
import type { DbHandle, LedgerAccountKind, Trx } from '../../db/schema';

/** One leg as ledger_post takes it: the account's role and scope, and the amount it receives. */
export interface LegRow {
  kind: LedgerAccountKind;
  gamesserverId: number;
  currency: 1 | 2;
  walletId: number | null;
  amount: bigint;
}

export interface PostedRow {
  transaction_id: bigint;
  wallet_id: number | null;
  gamesserver_id: number | null;
  balance: bigint | null;
  balance_second: bigint | null;
}

const rows = async <R>(db: DbHandle, query: ReturnType<typeof sql<R>>) => (await query.execute(db)).rows;

export const ledgerRepository = {
  /** ledger_post (db/functions/ledger.sql): one row per touched wallet, or one with a NULL wallet. */
  async post(trx: Trx, p: { kind: string; refType: string | null; refId: string | null; actorUserId: number | null; legs: LegRow[] }) {
    const { legs } = p;
    return rows<PostedRow>(
      trx,
      sql`SELECT * FROM ledger_post(${p.kind}, ${p.refType}, ${p.refId}::bigint, ${p.actorUserId}::integer,
        ${legs.map((l) => l.kind)}::text[], ${legs.map((l) => l.gamesserverId)}::integer[], ${legs.map((l) => l.currency)}::smallint[],
        ${legs.map((l) => l.walletId)}::integer[], ${legs.map((l) => String(l.amount))}::bigint[])`,
    );
  },

  // ── the audit's questions, each answering the rows that break one invariant ──

  async hasTable(db: DbHandle, name: string) {
    return (await rows<{ t: string | null }>(db, sql`SELECT to_regclass(${name})::text AS t`))[0]?.t != null;
  },

  /** Per transaction, game server and currency: value never moves between servers or currencies. */
  unbalancedTransactions: (db: DbHandle) =>
    rows<{ id: bigint; gamesserver_id: number; currency_type: number; s: bigint }>(
      db,
      sql`SELECT e.transaction_id AS id, a.gamesserver_id, a.currency_type, sum(e.amount) AS s
        FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        GROUP BY e.transaction_id, a.gamesserver_id, a.currency_type HAVING sum(e.amount) <> 0
        ORDER BY 1, 2, 3`,
    ),

  /** A wallet's accounts are on the wallet's own game server. */
  walletAccountsOnOtherServers: (db: DbHandle) =>
    rows<{ account_id: number; wallet_id: number }>(
      db,
      sql`SELECT a.id AS account_id, w.id AS wallet_id FROM ledger_accounts a JOIN wallets w ON w.id = a.wallet_id
        WHERE a.gamesserver_id <> w.gamesserver_id`,
    ),

  transactionsWithFewEntries: (db: DbHandle) =>
    rows<{ id: bigint; n: bigint }>(
      db,
      sql`SELECT t.id, count(e.id) AS n FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
        GROUP BY t.id HAVING count(e.id) < 2`,
    ),

  /** Each wallet's cached balance in each currency beside the sum of its entries. */
  walletSums: (db: DbHandle) =>
    rows<{ wallet_id: number; currency_type: number; cached: bigint; summed: bigint }>(
      db,
      sql`SELECT w.id AS wallet_id, c.currency_type,
             CASE c.currency_type WHEN 1 THEN w.balance ELSE w.balance_second END AS cached,
             coalesce((SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                       WHERE a.wallet_id = w.id AND a.currency_type = c.currency_type), 0)::bigint AS summed
        FROM wallets w CROSS JOIN (VALUES (1), (2)) AS c(currency_type)`,
    ),

  negativeWallets: (db: DbHandle) => rows<{ id: number }>(db, sql`SELECT id FROM wallets WHERE balance < 0 OR balance_second < 0`),

  /** Each wallet account's balance after its last entry beside the sum of its entries. */
  walletAccountSums: (db: DbHandle) =>
    rows<{ account_id: number; last_after: bigint; summed: bigint | null }>(
      db,
      sql`SELECT a.id AS account_id,
             (SELECT e.balance_after FROM ledger_entries e WHERE e.account_id = a.id ORDER BY e.id DESC LIMIT 1) AS last_after,
             (SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id)::bigint AS summed
        FROM ledger_accounts a WHERE a.kind = 'wallet'`,
    ),

  negativeServiceAccounts: (db: DbHandle) =>
    rows<{ key: string; s: bigint }>(
      db,
      sql`SELECT a.key, sum(e.amount) AS s FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id
        WHERE a.kind IN ('escrow', 'payout', 'fees') GROUP BY a.key HAVING sum(e.amount) < 0`,
    ),

  /** Per server and currency where the payout account does not hold exactly the pending withdrawals. */
  payoutMismatches: (db: DbHandle) =>
    rows<{ key: string; held: bigint; pending: bigint }>(
      db,
      sql`WITH held AS (
          SELECT a.gamesserver_id, a.currency_type, sum(e.amount) AS held
          FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id WHERE a.kind = 'payout'
          GROUP BY 1, 2),
        pending AS (
          SELECT gamesserver_id, currency_type, sum(amount) AS pending FROM balance_requests
          WHERE type = 'output' AND status = 'pending' GROUP BY 1, 2)
        SELECT coalesce(h.gamesserver_id, p.gamesserver_id) || ':' || coalesce(h.currency_type, p.currency_type) AS key,
               coalesce(h.held, 0) AS held, coalesce(p.pending, 0) AS pending
        FROM held h FULL JOIN pending p ON p.gamesserver_id = h.gamesserver_id AND p.currency_type = h.currency_type
        WHERE coalesce(h.held, 0) <> coalesce(p.pending, 0)`,
    ),

  /**
   * Requests whose postings do not match their state: a deposit credited once when completed; a withdrawal
   * held from the wallet while pending, paid into the cash when completed, given back when rejected or
   * cancelled; postings of a request that does not exist. The sums per server above cannot see a decision
   * applied twice (its posting balances), this can.
   */
  requestMismatches: (db: DbHandle) =>
    rows<{ id: number; wallet: bigint; payout: bigint; cash: bigint }>(
      db,
      sql`WITH moved AS (
          SELECT t.ref_id AS id,
                 coalesce(sum(e.amount) FILTER (WHERE a.kind = 'wallet'), 0) AS wallet,
                 coalesce(sum(e.amount) FILTER (WHERE a.kind = 'payout'), 0) AS payout,
                 coalesce(sum(e.amount) FILTER (WHERE a.kind = 'cash'), 0) AS cash
          FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
          WHERE t.ref_type = 'balance_request' GROUP BY t.ref_id),
        expected AS (
          SELECT r.id,
                 CASE WHEN r.type = 'input' AND r.status = 'completed' THEN r.amount
                      WHEN r.type = 'output' AND r.status IN ('pending', 'completed') THEN -r.amount ELSE 0 END AS wallet,
                 CASE WHEN r.type = 'output' AND r.status = 'pending' THEN r.amount ELSE 0 END AS payout,
                 CASE WHEN r.status <> 'completed' THEN 0 WHEN r.type = 'input' THEN -r.amount ELSE r.amount END AS cash
          FROM balance_requests r)
        SELECT coalesce(x.id, m.id)::int AS id, coalesce(m.wallet, 0) AS wallet, coalesce(m.payout, 0) AS payout, coalesce(m.cash, 0) AS cash
        FROM expected x FULL JOIN moved m ON m.id = x.id
        WHERE x.id IS NULL OR coalesce(m.wallet, 0) <> x.wallet OR coalesce(m.payout, 0) <> x.payout OR coalesce(m.cash, 0) <> x.cash
        ORDER BY 1 LIMIT 100`,
    ),

  /** Per server where the escrow account does not hold exactly the nominals of the active codes. */
  escrowMismatches: (db: DbHandle) =>
    rows<{ gamesserver_id: number; escrow: bigint; open: bigint }>(
      db,
      sql`WITH escrow AS (
          SELECT a.gamesserver_id, sum(e.amount) AS escrow
          FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id WHERE a.kind = 'escrow' GROUP BY 1),
        open AS (SELECT gamesserver_id, sum(nominal) AS open FROM codes WHERE status = 'active' GROUP BY 1)
        SELECT coalesce(x.gamesserver_id, o.gamesserver_id) AS gamesserver_id,
               coalesce(x.escrow, 0) AS escrow, coalesce(o.open, 0) AS open
        FROM escrow x FULL JOIN open o ON o.gamesserver_id = x.gamesserver_id
        WHERE coalesce(x.escrow, 0) <> coalesce(o.open, 0)`,
    ),
};
