import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { AppError } from '../../lib/app-error';

type Q = Kysely<Database> | Transaction<Database>;

/**
 * The caller's wallet on an active game server, created on first use. The owner is part of
 * every lookup, so another user's wallet is simply not found.
 */
export async function ensureWallet(db: Q, userId: number, gamesserverId: number) {
  const server = await db
    .selectFrom('gamesservers')
    .select(['id', 'active'])
    .where('id', '=', gamesserverId)
    .executeTakeFirst();
  if (!server?.active) {
    throw new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
  }
  await db
    .insertInto('wallets')
    .values({ user_id: userId, gamesserver_id: gamesserverId })
    .onConflict((oc) => oc.columns(['user_id', 'gamesserver_id']).doNothing())
    .execute();
  return db
    .selectFrom('wallets')
    .selectAll()
    .where('user_id', '=', userId)
    .where('gamesserver_id', '=', gamesserverId)
    .executeTakeFirstOrThrow();
}

export function findWallet(db: Q, userId: number, walletId: number) {
  return db.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('id', '=', walletId).executeTakeFirst();
}
