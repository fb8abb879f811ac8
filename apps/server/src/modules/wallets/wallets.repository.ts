import { type Kysely, sql, type Transaction } from 'kysely';
import { compiledForms } from '../../db/compiled-forms';
import type { Database } from '../../db/schema';
import { AppError } from '../../lib/app-error';

type Q = Kysely<Database> | Transaction<Database>;

/**
 * The caller's wallet on an active game server, created on first use. The owner is part of
 * every lookup, so another user's wallet is simply not found.
 */
export async function ensureWallet(db: Q, userId: number, gameServerId: number) {
  const server = await db
    .selectFrom('gamesservers')
    .select(['id', 'active'])
    .where('id', '=', gameServerId)
    .executeTakeFirst();
  if (!server?.active) {
    throw new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
  }
  await db
    .insertInto('wallets')
    .values({ user_id: userId, gamesserver_id: gameServerId })
    .onConflict((oc) => oc.columns(['user_id', 'gamesserver_id']).doNothing())
    .execute();
  return db
    .selectFrom('wallets')
    .selectAll()
    .where('user_id', '=', userId)
    .where('gamesserver_id', '=', gameServerId)
    .executeTakeFirstOrThrow();
}

/** The nick of the service's cashier character on a server. */
export async function cashierNickOf(db: Q, gameServerId: number) {
  return (await db.selectFrom('gamesservers').select('cashier_nick').where('id', '=', gameServerId).executeTakeFirst())?.cashier_nick ?? null;
}

export function findWallet(db: Q, userId: number, walletId: number) {
  return db.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('id', '=', walletId).executeTakeFirst();
}

/**
 * The wallets of several owners on active servers, with each server's name, in one statement (the
 * batched read of GET /api/wallets): each owner's rows in the players' order. The ids travel as
 * one array literal, so the text, and with it the prepared statement, is the same whatever their
 * number. A lone owner (an idle process's every call) gets a statement of its own: PostgreSQL
 * plans `= ANY($1)` afresh on every call (its generic plan is costed for an array of ten), which
 * costs it about four times the read, while `= $1` is planned once per connection.
 */
export function activeWalletsOf(db: Q, userIds: readonly number[]) {
  return activeWalletsQuery(db, userIds).execute();
}

/** The owners as `activeWalletsQuery` passes them: one id, or several as one array literal. */
const ownersParameter = (userIds: readonly number[]) =>
  userIds.length === 1 ? Math.trunc(userIds[0]!) : `{${userIds.map((id) => Math.trunc(id)).join(',')}}`;

/**
 * `activeWalletsQuery` compiled, to be run elsewhere (on the change feed's connection: `ChangeFeed.read`). Built and
 * compiled once per form and handle (`compiledForms`): only the owners, the statement's first parameter, change from
 * call to call (`wallets.repository.test.ts` compares with a fresh compile).
 */
export const activeWalletsCompiled = compiledForms({
  statement: activeWalletsQuery,
  sample: 0,
  leading: (userIds) => [ownersParameter(userIds)],
});

/** `activeWalletsOf`'s statement. */
export function activeWalletsQuery(db: Q, userIds: readonly number[]) {
  const owners = userIds.length === 1 ? sql<boolean>`w.user_id = ${ownersParameter(userIds)}` : sql<boolean>`w.user_id = ANY(${ownersParameter(userIds)}::int[])`;
  return db
    .selectFrom('wallets as w')
    .innerJoin('gamesservers as g', 'g.id', 'w.gamesserver_id')
    .select(['w.user_id', 'w.id', 'w.gamesserver_id', 'g.name as gamesserver', 'w.nick', 'w.balance', 'w.balance_second', 'w.new_message'])
    .where(owners)
    .where('g.active', '=', true)
    .orderBy('w.user_id')
    .orderBy('g.sort_order')
    .orderBy('g.id');
}

export function setNick(db: Q, userId: number, walletId: number, nick: string) {
  return db.updateTable('wallets').set({ nick }).where('id', '=', walletId).where('user_id', '=', userId).execute();
}

/** Every wallet of the user, inactive servers too, with the ledger account of each currency (the admin's user card). */
export function userWalletsWithAccounts(db: Q, userId: number) {
  return db
    .selectFrom('wallets')
    .innerJoin('gamesservers', 'gamesservers.id', 'wallets.gamesserver_id')
    .selectAll('wallets')
    .select('gamesservers.name as gamesserver')
    .select((eb) => [
      eb
        .selectFrom('ledger_accounts')
        .select('ledger_accounts.id')
        .whereRef('ledger_accounts.wallet_id', '=', 'wallets.id')
        .where('ledger_accounts.currency_type', '=', 1)
        .as('account_1'),
      eb
        .selectFrom('ledger_accounts')
        .select('ledger_accounts.id')
        .whereRef('ledger_accounts.wallet_id', '=', 'wallets.id')
        .where('ledger_accounts.currency_type', '=', 2)
        .as('account_2'),
    ])
    .where('wallets.user_id', '=', userId)
    .orderBy('gamesservers.sort_order')
    .orderBy('gamesservers.id')
    .execute();
}

export type WalletRow = Awaited<ReturnType<typeof activeWalletsOf>>[number];
export type AdminWalletRow = Awaited<ReturnType<typeof userWalletsWithAccounts>>[number];
