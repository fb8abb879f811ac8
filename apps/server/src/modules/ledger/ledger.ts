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
 * Records one balanced movement of value inside the caller's database transaction, in one
 * round trip: the database function ledger_post (migration 0010) creates missing accounts,
 * applies the wallet legs as guarded UPDATEs, writes the transaction and its entries. This and
 * request_open, which calls ledger_post, are the only code that changes a balance.
 *
 * Wallet legs go first, in ascending wallet id, and the service's accounts keep no running
 * balance, so two postings can never wait on each other in a cycle. A wallet leg that would go
 * below zero fails the posting with INSUFFICIENT_BALANCE (409 with low_cap); the caller's
 * transaction is then aborted and rolls back.
 */
export async function post(trx: Transaction<Database>, posting: Posting): Promise<PostResult> {
  const legs = mergeLegs(posting.legs);
  if (legs.length < 2) throw new Error(`ledger posting ${posting.kind} needs at least two legs`);
  const sum = legs.reduce((s, l) => s + l.amount, 0n);
  if (sum !== 0n) throw new Error(`ledger posting ${posting.kind} does not balance: ${sum}`);
  const order = (l: Leg) => (l.account.kind === 'wallet' ? [0, l.account.walletId, l.account.currency] : [1, 0, 0]);
  legs.sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });

  const { rows } = await sql<{
    transaction_id: bigint;
    wallet_id: number | null;
    gamesserver_id: number | null;
    balance: bigint | null;
    balance_second: bigint | null;
  }>`SELECT * FROM ledger_post(${posting.kind}, ${posting.refType ?? null}, ${posting.refId === undefined ? null : String(posting.refId)}::bigint,
      ${posting.actorUserId ?? null}::integer,
      ${legs.map((l) => accountKey(l.account))}::text[], ${legs.map((l) => l.account.kind)}::text[],
      ${legs.map((l) => l.account.gamesserverId)}::integer[], ${legs.map((l) => l.account.currency)}::smallint[],
      ${legs.map((l) => (l.account.kind === 'wallet' ? l.account.walletId : null))}::integer[], ${legs.map((l) => String(l.amount))}::bigint[])`
    .execute(trx)
    .catch(rethrowMoneyError);
  return {
    transactionId: BigInt(rows[0]!.transaction_id),
    wallets: rows
      .filter((r) => r.wallet_id !== null)
      .map((r) => ({ walletId: r.wallet_id!, gamesserverId: r.gamesserver_id!, balance: BigInt(r.balance!), balanceSecond: BigInt(r.balance_second!) })),
  };
}

/**
 * Turns the errors the money functions of migrations 0010 and 0011 raise (SQLSTATE class AW) into the
 * answers of the API; anything else is rethrown as it is.
 */
export function rethrowMoneyError(err: unknown): never {
  const e = err as { code?: string; detail?: string };
  switch (e?.code) {
    case 'AW401':
      throw new AppError('UNAUTHENTICATED');
    case 'AW409':
      throw new AppError('INSUFFICIENT_BALANCE', { body: { low_cap: true }, errors: { amount: ['Недостаточно средств на балансе'] } });
    case 'AW404':
      throw new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
    case 'AW423':
      throw new AppError('VALIDATION', {
        message: 'Сначала укажите ник персонажа',
        errors: { nick: ['Укажите ник персонажа на этом сервере: по нему кассир найдёт вас в игре'] },
      });
    default:
      throw err;
  }
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
