import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';

export type VipDb = Kysely<Database>;
export type VipTrx = Transaction<Database>;

/** Queries only: the servers whose coins may pay, the payer's wallet there, and the user's VIP end. */
export const vipRepository = {
  gameServer(trx: VipTrx, id: number) {
    return trx.selectFrom('gamesservers').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** In display order: without a chosen server, the first whose coins cover the price pays. */
  activeGameServers(trx: VipTrx) {
    return trx.selectFrom('gamesservers').selectAll().where('active', '=', true).orderBy('sort_order').orderBy('id').execute();
  },

  /**
   * The buyer's own row, locked for the VIP change before any wallet: every path that takes a player's row and a
   * wallet takes the row first (an operator's completion holds it FOR SHARE, then locks the wallet), and taking a
   * wallet first, then updating the row, deadlocked with a completion of the player's withdrawal (one of the two 503).
   */
  lockBuyer(trx: VipTrx, userId: number) {
    return trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().executeTakeFirstOrThrow();
  },

  /**
   * All the owner's wallets, row-locked in ascending id as every movement locks wallets (decision
   * record 0003): a purchase that chose one by its coins pays from it before another purchase can
   * choose by the same coins, and walking the servers in display order, locking as it went, could
   * deadlock with a statement that updates several of the player's wallets at once. FOR NO KEY UPDATE, the lock
   * the payment's UPDATE takes anyway: FOR UPDATE also waited for the key-share locks of writes that refer to a
   * wallet (foreign-key checks), for nothing.
   */
  walletsOfOwner(trx: VipTrx, ownerId: number) {
    return trx.selectFrom('wallets').select(['id', 'gamesserver_id', 'balance_second as coins']).where('user_id', '=', ownerId).orderBy('id').forNoKeyUpdate().execute();
  },

  /** The owner's wallet on the chosen server, row-locked as above. */
  walletOnServer(trx: VipTrx, ownerId: number, gameServerId: number) {
    return trx
      .selectFrom('wallets')
      .select(['id', 'balance_second as coins'])
      .where('user_id', '=', ownerId)
      .where('gamesserver_id', '=', gameServerId)
      .forNoKeyUpdate()
      .executeTakeFirst();
  },

  /**
   * Extends VIP from whichever is later, now or the current end, in one statement, by whole 24-hour days: an
   * interval of days is added in the session's time zone, and across a daylight-saving change it was an hour short.
   */
  extendVip(trx: VipTrx, userId: number, days: number) {
    return trx
      .updateTable('users')
      .set({
        vip_until: sql`greatest(now(), coalesce(vip_until, now())) + make_interval(secs => ${days * 86_400}::float8)`,
        updated_at: sql`now()`,
      })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },
};

export type VipServerRow = NonNullable<Awaited<ReturnType<typeof vipRepository.gameServer>>>;
export type VipWalletRow = NonNullable<Awaited<ReturnType<typeof vipRepository.walletOnServer>>>;
