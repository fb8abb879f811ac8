import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema';

export interface AuditResult {
  ok: boolean;
  problems: string[];
  checked_at: string;
}

async function tableExists(db: Kysely<Database>, name: string) {
  const r = await sql<{ t: string | null }>`SELECT to_regclass(${name})::text AS t`.execute(db);
  return r.rows[0]?.t != null;
}

/**
 * Checks every invariant of the ledger and reports each violation in words. Read-only; run it
 * in tests after every concurrent scenario and from the admin area on demand.
 */
export async function auditLedger(db: Kysely<Database>): Promise<AuditResult> {
  const problems: string[] = [];
  const q = async <R>(query: ReturnType<typeof sql<R>>) => (await query.execute(db)).rows;

  for (const r of await q<{ id: bigint; s: bigint }>(sql`
    SELECT transaction_id AS id, sum(amount) AS s FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`)) {
    problems.push(`проводка ${r.id} не сбалансирована: сумма ${r.s}`);
  }
  for (const r of await q<{ id: bigint; n: bigint }>(sql`
    SELECT t.id, count(e.id) AS n FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
    GROUP BY t.id HAVING count(e.id) < 2`)) {
    problems.push(`проводка ${r.id} имеет ${r.n} записей (нужно не меньше двух)`);
  }
  for (const r of await q<{ wallet_id: number; currency_type: number; cached: bigint; summed: bigint }>(sql`
    SELECT w.id AS wallet_id, c.currency_type,
           CASE c.currency_type WHEN 1 THEN w.balance ELSE w.balance_second END AS cached,
           coalesce((SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                     WHERE a.wallet_id = w.id AND a.currency_type = c.currency_type), 0)::bigint AS summed
    FROM wallets w CROSS JOIN (VALUES (1), (2)) AS c(currency_type)`)) {
    if (r.cached !== r.summed) {
      problems.push(`кошелёк ${r.wallet_id}, валюта ${r.currency_type}: баланс ${r.cached}, а по журналу ${r.summed}`);
    }
  }
  for (const r of await q<{ id: number }>(sql`SELECT id FROM wallets WHERE balance < 0 OR balance_second < 0`)) {
    problems.push(`кошелёк ${r.id} ушёл в минус`);
  }
  for (const r of await q<{ account_id: number; last_after: bigint; summed: bigint }>(sql`
    SELECT a.id AS account_id,
           (SELECT e.balance_after FROM ledger_entries e WHERE e.account_id = a.id ORDER BY e.id DESC LIMIT 1) AS last_after,
           (SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id)::bigint AS summed
    FROM ledger_accounts a WHERE a.kind = 'wallet'`)) {
    if (r.summed !== null && r.last_after !== r.summed) {
      problems.push(`счёт ${r.account_id}: остаток после последней записи ${r.last_after}, а по журналу ${r.summed}`);
    }
  }
  for (const r of await q<{ key: string; s: bigint }>(sql`
    SELECT a.key, sum(e.amount) AS s FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id
    WHERE a.kind IN ('escrow', 'payout', 'fees') GROUP BY a.key HAVING sum(e.amount) < 0`)) {
    problems.push(`служебный счёт ${r.key} ушёл в минус: ${r.s}`);
  }

  if (await tableExists(db, 'balance_requests')) {
    for (const r of await q<{ key: string; held: bigint; pending: bigint }>(sql`
      WITH held AS (
        SELECT a.gamesserver_id, a.currency_type, sum(e.amount) AS held
        FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id WHERE a.kind = 'payout'
        GROUP BY 1, 2),
      pending AS (
        SELECT gamesserver_id, currency_type, sum(amount) AS pending FROM balance_requests
        WHERE type = 'output' AND status = 'pending' GROUP BY 1, 2)
      SELECT coalesce(h.gamesserver_id, p.gamesserver_id) || ':' || coalesce(h.currency_type, p.currency_type) AS key,
             coalesce(h.held, 0) AS held, coalesce(p.pending, 0) AS pending
      FROM held h FULL JOIN pending p ON p.gamesserver_id = h.gamesserver_id AND p.currency_type = h.currency_type
      WHERE coalesce(h.held, 0) <> coalesce(p.pending, 0)`)) {
      problems.push(`выплаты ${r.key}: удержано ${r.held}, а ожидающих заявок на вывод на ${r.pending}`);
    }
  }

  if (await tableExists(db, 'codes')) {
    for (const r of await q<{ gamesserver_id: number; escrow: bigint; open: bigint }>(sql`
      WITH escrow AS (
        SELECT a.gamesserver_id, sum(e.amount) AS escrow
        FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id WHERE a.kind = 'escrow' GROUP BY 1),
      open AS (SELECT gamesserver_id, sum(nominal) AS open FROM codes WHERE status = 'active' GROUP BY 1)
      SELECT coalesce(x.gamesserver_id, o.gamesserver_id) AS gamesserver_id,
             coalesce(x.escrow, 0) AS escrow, coalesce(o.open, 0) AS open
      FROM escrow x FULL JOIN open o ON o.gamesserver_id = x.gamesserver_id
      WHERE coalesce(x.escrow, 0) <> coalesce(o.open, 0)`)) {
      problems.push(`сервер ${r.gamesserver_id}: на депоненте ${r.escrow}, а активных кодов на ${r.open}`);
    }
  }

  return { ok: problems.length === 0, problems, checked_at: new Date().toISOString() };
}
