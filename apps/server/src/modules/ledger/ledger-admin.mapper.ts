import type { AdminLedgerAccount, AdminLedgerEntry, LedgerTotalsRow } from '@adena/contract';
import { toFigure, toNumber } from '../../lib/money';
import type { AccountRow, EntryRow } from './ledger-admin.repository';

export const toLedgerEntry = (e: EntryRow): AdminLedgerEntry => ({
  id: toNumber(e.id),
  transaction_id: toNumber(e.transaction_id),
  transaction_kind: e.transaction_kind,
  ref_type: e.ref_type,
  ref_id: e.ref_id === null ? null : toNumber(e.ref_id),
  actor_user_id: e.actor_user_id,
  account_id: e.account_id,
  account_key: e.account_key,
  gamesserver_id: e.gamesserver_id,
  currency_type: Number(e.currency_type) as 1 | 2,
  amount: toNumber(e.amount),
  balance_after: e.balance_after === null ? null : toFigure(e.balance_after),
  created_at: e.created_at.toISOString(),
});

export const toLedgerAccount = (a: AccountRow): AdminLedgerAccount => ({
  id: a.id,
  key: a.key,
  kind: a.kind,
  gamesserver_id: a.gamesserver_id,
  gamesserver: a.gamesserver,
  currency_type: Number(a.currency_type) as 1 | 2,
  wallet_id: a.wallet_id,
  user_id: a.user_id ?? null,
  balance: toFigure(a.balance),
});

/** One server and currency of the ledger's totals, in the service's terms. */
export interface LedgerTotals {
  gameServerId: number;
  gameServer: string;
  currency: 1 | 2;
  wallets: bigint;
  payout: bigint;
  escrow: bigint;
  fees: bigint;
  cash: bigint;
  owed: bigint;
  accounts: Record<'cash' | 'payout' | 'escrow' | 'fees', number | null>;
}

export const toLedgerTotalsRow = (t: LedgerTotals): LedgerTotalsRow => ({
  gamesserver_id: t.gameServerId,
  gamesserver: t.gameServer,
  currency_type: t.currency,
  wallets: toFigure(t.wallets),
  payout: toFigure(t.payout),
  escrow: toFigure(t.escrow),
  fees: toFigure(t.fees),
  cash: toFigure(t.cash),
  owed: toFigure(t.owed),
  accounts: t.accounts,
});
