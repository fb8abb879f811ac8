import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, LedgerAccountKind } from '../../db/schema';
import { AppError } from '../../lib/app-error';

export type CurrencyType = 1 | 2;
export type Trx = Transaction<Database> | Kysely<Database>;

export type AccountRef =
  | { kind: 'wallet'; walletId: number; gamesserverId: number; currency: CurrencyType }
  | { kind: Exclude<LedgerAccountKind, 'wallet'>; gamesserverId: number; currency: CurrencyType };

export interface Leg {
  account: AccountRef;
  /** Positive adds to the account, negative takes from it. Legs of one posting sum to zero. */
  amount: bigint;
}

export interface Posting {
  /** What happened, e.g. 'deposit', 'withdrawal_hold', 'code_issue'. */
  kind: string;
  refType?: string;
  refId?: number | bigint;
  actorUserId?: number;
  legs: Leg[];
}

export interface WalletBalance {
  walletId: number;
  gamesserverId: number;
  balance: bigint;
  balanceSecond: bigint;
}

export interface PostResult {
  transactionId: bigint;
  /** The new balances of every wallet the posting touched, for the realtime `balance` event. */
  wallets: WalletBalance[];
}

export const accountKey = (a: AccountRef) =>
  a.kind === 'wallet' ? `wallet:${a.walletId}:${a.currency}` : `${a.kind}:${a.gamesserverId}:${a.currency}`;

/**
 * Records one balanced movement of value inside the caller's database transaction. This is
 * the only code that changes a balance.
 *
 * Wallet legs are applied in ascending wallet id, with a guard that refuses to go below zero
 * (INSUFFICIENT_BALANCE, 409 with low_cap) before the CHECK constraint would. Every posting
 * locks wallets in the same order and the service's accounts keep no running balance, so
 * two postings can never wait on each other in a cycle.
 */
export async function post(trx: Transaction<Database>, posting: Posting): Promise<PostResult> {
  const legs = mergeLegs(posting.legs);
  if (legs.length < 2) throw new Error(`ledger posting ${posting.kind} needs at least two legs`);
  const sum = legs.reduce((s, l) => s + l.amount, 0n);
  if (sum !== 0n) throw new Error(`ledger posting ${posting.kind} does not balance: ${sum}`);

  const accountIds = await ensureAccounts(trx, legs.map((l) => l.account));

  // Apply the debits and credits of wallets, in wallet-id order.
  const walletLegs = legs
    .filter((l): l is Leg & { account: Extract<AccountRef, { kind: 'wallet' }> } => l.account.kind === 'wallet')
    .sort((a, b) => a.account.walletId - b.account.walletId || a.account.currency - b.account.currency);
  const balanceAfter = new Map<string, bigint>();
  const touched = new Map<number, WalletBalance>();
  for (const leg of walletLegs) {
    const column = leg.account.currency === 1 ? 'balance' : 'balance_second';
    const row = await trx
      .updateTable('wallets')
      .set({ [column]: sql`${sql.ref(column)} + ${leg.amount}` })
      .where('id', '=', leg.account.walletId)
      .where(sql<boolean>`${sql.ref(column)} + ${leg.amount} >= 0`)
      .returning(['id', 'gamesserver_id', 'balance', 'balance_second'])
      .executeTakeFirst();
    if (!row) {
      throw new AppError('INSUFFICIENT_BALANCE', {
        body: { low_cap: true },
        errors: { amount: ['Недостаточно средств на балансе'] },
      });
    }
    balanceAfter.set(accountKey(leg.account), leg.account.currency === 1 ? row.balance : row.balance_second);
    touched.set(row.id, { walletId: row.id, gamesserverId: row.gamesserver_id, balance: row.balance, balanceSecond: row.balance_second });
  }

  const tx = await trx
    .insertInto('ledger_transactions')
    .values({
      kind: posting.kind,
      ref_type: posting.refType ?? null,
      ref_id: posting.refId === undefined ? null : BigInt(posting.refId),
      actor_user_id: posting.actorUserId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

  await trx
    .insertInto('ledger_entries')
    .values(
      legs.map((l) => ({
        transaction_id: tx.id,
        account_id: accountIds.get(accountKey(l.account))!,
        amount: l.amount,
        balance_after: balanceAfter.get(accountKey(l.account)) ?? null,
      })),
    )
    .execute();

  return { transactionId: tx.id, wallets: [...touched.values()] };
}

function mergeLegs(legs: Leg[]): Leg[] {
  const byKey = new Map<string, Leg>();
  for (const leg of legs) {
    const key = accountKey(leg.account);
    const prev = byKey.get(key);
    byKey.set(key, prev ? { account: leg.account, amount: prev.amount + leg.amount } : leg);
  }
  return [...byKey.values()].filter((l) => l.amount !== 0n);
}

async function ensureAccounts(trx: Transaction<Database>, refs: AccountRef[]): Promise<Map<string, number>> {
  const keys = refs.map(accountKey);
  // DO NOTHING, not DO UPDATE: an upsert would lock the hot per-server rows on every posting.
  await trx
    .insertInto('ledger_accounts')
    .values(
      refs.map((a) => ({
        key: accountKey(a),
        kind: a.kind,
        gamesserver_id: a.gamesserverId,
        currency_type: a.currency,
        wallet_id: a.kind === 'wallet' ? a.walletId : null,
      })),
    )
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const rows = await trx.selectFrom('ledger_accounts').select(['id', 'key']).where('key', 'in', keys).execute();
  return new Map(rows.map((r) => [r.key, r.id]));
}

/** The wallet account of a wallet in one currency. */
export const walletAccount = (walletId: number, gamesserverId: number, currency: CurrencyType): AccountRef => ({
  kind: 'wallet',
  walletId,
  gamesserverId,
  currency,
});

export const serviceAccount = (
  kind: Exclude<LedgerAccountKind, 'wallet'>,
  gamesserverId: number,
  currency: CurrencyType,
): AccountRef => ({ kind, gamesserverId, currency });
