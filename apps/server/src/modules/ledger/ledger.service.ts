import { plural } from '@adena/contract/lite';
import type { DbHandle, LedgerAccountKind, Trx } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import { ledgerRepository as repo } from './ledger.repository';

export type CurrencyType = 1 | 2;

/** An account by role and scope; its key is spelled only in SQL (ledger_account_key). */
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
  /** The payload field a short balance's 409 names in `errors` (the call's own field: `nominal`, `count`); `amount` by default. */
  shortField?: string;
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

/**
 * Records one balanced movement of value inside the caller's transaction, in one round trip to
 * ledger_post (db/functions/ledger.sql), which owns every rule of a posting: legs on one account
 * are summed, wallets are locked in ascending id, accounts are found or created, a wallet leg that
 * would go below zero fails the posting with INSUFFICIENT_BALANCE (409 with low_cap), one that would
 * pass the API's largest amount with CONFLICT (409), and the
 * transaction and its entries are written. With request_open, which calls ledger_post, this is
 * the only code that changes a balance. Legs may come in any order.
 */
export async function post(trx: Trx, posting: Posting): Promise<PostResult> {
  const rows = await repo
    .post(trx, {
      kind: posting.kind,
      refType: posting.refType ?? null,
      refId: posting.refId === undefined ? null : String(posting.refId),
      actorUserId: posting.actorUserId ?? null,
      legs: posting.legs.map(({ account: a, amount }) => ({
        kind: a.kind,
        gamesserverId: a.gamesserverId,
        currency: a.currency,
        walletId: a.kind === 'wallet' ? a.walletId : null,
        amount,
      })),
    })
    .catch((err: unknown) => rethrowMoneyError(err, posting.shortField));
  return {
    transactionId: BigInt(rows[0]!.transaction_id),
    wallets: rows
      .filter((r) => r.wallet_id !== null)
      .map((r) => ({ walletId: r.wallet_id!, gamesserverId: r.gamesserver_id!, balance: BigInt(r.balance!), balanceSecond: BigInt(r.balance_second!) })),
  };
}

/**
 * Turns the errors the money functions of db/functions/ raise (SQLSTATE class AW) into the answers
 * of the API; anything else is rethrown as it is.
 */
export function rethrowMoneyError(err: unknown, shortField = 'amount'): never {
  const e = err as { code?: string; detail?: string };
  switch (e?.code) {
    case 'AW401':
      throw new AppError('UNAUTHENTICATED');
    case 'AW409':
      throw new AppError('INSUFFICIENT_BALANCE', { body: { low_cap: true }, errors: { [shortField]: ['Недостаточно средств на балансе'] } });
    case 'AW413':
      // No field: the dialogs that can meet it (a refund, a deposit's completion) have no amount field to put it under.
      throw new AppError('CONFLICT', { message: 'Баланс кошелька превысил бы допустимый предел' });
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

export interface AuditResult {
  ok: boolean;
  problems: string[];
  checked_at: string;
}

/** A currency in the audit's words: «в адене», «(монеты эйнхасад)»; an unknown number as it is. */
const inCurrency = (c: number) => (Number(c) === 1 ? 'в адене' : Number(c) === 2 ? 'в монетах эйнхасад' : `в валюте ${c}`);
const currencyName = (c: number) => (Number(c) === 1 ? 'адена' : Number(c) === 2 ? 'монеты эйнхасад' : `валюта ${c}`);

/**
 * Checks every invariant of the ledger and reports each violation in words. Read-only; run it
 * in tests after every concurrent scenario and from the admin area on demand.
 */
export async function auditLedger(db: DbHandle): Promise<AuditResult> {
  const problems: string[] = [];
  for (const r of await repo.unbalancedTransactions(db)) {
    problems.push(`проводка ${r.id} не сбалансирована на сервере ${r.gamesserver_id} ${inCurrency(r.currency_type)}: сумма ${r.s}`);
  }
  for (const r of await repo.walletAccountsOnOtherServers(db)) {
    problems.push(`счёт ${r.account_id} кошелька ${r.wallet_id} числится на другом игровом сервере`);
  }
  for (const r of await repo.transactionsWithFewEntries(db)) {
    problems.push(`проводка ${r.id} имеет ${r.n} ${plural(r.n, ['запись', 'записи', 'записей'])} (нужно не меньше двух)`);
  }
  for (const r of await repo.walletSums(db)) {
    if (r.cached !== r.summed) {
      problems.push(`кошелёк ${r.wallet_id} (${currencyName(r.currency_type)}): баланс ${r.cached}, а по журналу ${r.summed}`);
    }
  }
  for (const r of await repo.negativeWallets(db)) {
    problems.push(`кошелёк ${r.id} ушёл в минус`);
  }
  for (const r of await repo.walletAccountSums(db)) {
    if (r.summed !== null && r.last_after !== r.summed) {
      problems.push(`счёт ${r.account_id}: остаток после последней записи ${r.last_after}, а по журналу ${r.summed}`);
    }
  }
  for (const r of await repo.negativeServiceAccounts(db)) {
    problems.push(`служебный счёт ${r.key} ушёл в минус: ${r.s}`);
  }
  if (await repo.hasTable(db, 'balance_requests')) {
    for (const r of await repo.payoutMismatches(db)) {
      problems.push(`выплаты ${r.key}: удержано ${r.held}, а ожидающих заявок на вывод на ${r.pending}`);
    }
    for (const r of await repo.requestMismatches(db)) {
      problems.push(`заявка ${r.id}: по журналу кошелёк ${r.wallet}, удержание ${r.payout}, касса ${r.cash} — не по её статусу`);
    }
  }
  if (await repo.hasTable(db, 'codes')) {
    for (const r of await repo.escrowMismatches(db)) {
      problems.push(`сервер ${r.gamesserver_id}: на депоненте ${r.escrow}, а активных кодов на ${r.open}`);
    }
  }
  return { ok: problems.length === 0, problems, checked_at: new Date().toISOString() };
}
