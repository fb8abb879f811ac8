import type { Wallet } from '@adena/contract';
import { toNumber } from '../../lib/money';
import type { AdminWalletRow, WalletRow } from './wallets.repository';

export const toWallet = (w: WalletRow): Wallet => ({
  id: w.id,
  gamesserver_id: w.gamesserver_id,
  gamesserver: w.gamesserver,
  nick: w.nick,
  balance: toNumber(w.balance),
  balance_second: toNumber(w.balance_second),
  new_message: w.new_message,
});

/** A wallet on the admin's user card: with the Telegram threshold and its ledger account per currency. */
export const toAdminWallet = (w: AdminWalletRow) => ({
  id: w.id,
  gamesserver_id: w.gamesserver_id,
  gamesserver: w.gamesserver,
  nick: w.nick,
  balance: toNumber(w.balance),
  balance_second: toNumber(w.balance_second),
  new_message: w.new_message,
  telegram_price: w.telegram_price === null ? null : toNumber(w.telegram_price),
  accounts: { '1': w.account_1 ?? null, '2': w.account_2 ?? null },
});
