import type { ChangeFeed } from '../../db/changes';
import type { Db } from '../../db/client';
import { coalesce } from '../../db/coalesce';
import { toNumber } from '../../lib/money';
import type { Caller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { toAdminWallet, toWallet } from './wallets.mapper';
import { activeWalletsCompiled, activeWalletsOf, cashierNickOf, ensureWallet, type WalletRow, setNick, userWalletsWithAccounts } from './wallets.repository';
import { AppError } from '../../lib/app-error';

/** For other modules' transactions: the caller's wallet on an active server, created on first use; and a wallet by owner and id. */
export { ensureWallet, findWallet } from './wallets.repository';

const CASHIER_NICK = 'Это ник кассира сервиса: укажите ник своего персонажа';

/** Each owner's rows, every owner asked for present (an empty list for none). */
function byOwner(userIds: readonly number[], rows: readonly WalletRow[]) {
  const byUser = new Map<number, WalletRow[]>(userIds.map((id) => [id, []]));
  for (const row of rows) byUser.get(row.user_id)?.push(row);
  return byUser;
}

/**
 * A player's wallets and the nick of their character on a server. `feed`: the change feed the session
 * cache follows, whose connection can read the wallets of cached callers as their read barrier.
 */
export function createWalletsService({ db, feed }: { db: Db['kysely']; feed?: Pick<ChangeFeed, 'read'> }) {
  // GET /api/wallets under load: the lists of every caller waiting at that moment in one statement,
  // read after each of them arrived (db/coalesce.ts), so a balance is never older than the request.
  const walletsOf = coalesce(async (userIds: number[]) => byOwner(userIds, await activeWalletsOf(db, userIds)));
  // The same for cached callers, on the feed's connection (decision record 0026, "The wallet read as the
  // barrier"): one statement at a time there, the callers arriving meanwhile going together in the next.
  // A read the feed could not take answers nobody, and each caller goes the usual way.
  const walletsOnFeed = coalesce(
    async (userIds: number[]) => {
      const rows = await feed?.read<WalletRow>(activeWalletsCompiled(db, userIds));
      return rows ? byOwner(userIds, rows) : new Map<number, WalletRow[]>();
    },
    { maxInFlight: 1 },
  );

  return {
    async list(caller: Caller) {
      return ((await walletsOf(caller.user.id)) ?? []).map(toWallet);
    },

    /** The wallets of a cached caller read on the change feed's connection, or undefined when it could not. */
    async listOnFeed(userId: number) {
      return (await walletsOnFeed(userId))?.map(toWallet);
    },

    /**
     * Creates the wallet on the server if it has none yet. Changing a nick already set asks for the
     * second factor (`confirmChange`): withdrawals are paid to that character, and a stolen session
     * must not redirect the owner's next payout.
     */
    async saveNick(caller: Caller, input: { gameServerId: number; nick: string }, confirmChange: () => Promise<void>) {
      const wallet = await ensureWallet(db, caller.user.id, input.gameServerId);
      // The service's own character: a deposit "from the cashier to the cashier" would let a player pass
      // off adena the cashier already holds as their transfer.
      const cashier = await cashierNickOf(db, input.gameServerId);
      if (cashier && cashier.toLocaleLowerCase('ru') === input.nick.toLocaleLowerCase('ru')) {
        throw new AppError('VALIDATION', { errors: { nick: [CASHIER_NICK] } });
      }
      if (wallet.nick && wallet.nick !== input.nick) await confirmChange();
      // The session checked again in the nick's own transaction, under the user's row: a block or a logout that the
      // step-up or this write waited for has ended it, and a thief's nick must not land after the owner's block.
      await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        await setNick(trx, caller.user.id, wallet.id, input.nick);
      });
      return input.nick;
    },

    /** The caller's balances on an active server (the seller API); the wallet is created on first use. */
    async balanceOn(caller: Caller, gameServerId: number) {
      const w = await ensureWallet(db, caller.user.id, gameServerId);
      return { gamesserver_id: w.gamesserver_id, balance: toNumber(w.balance), balance_second: toNumber(w.balance_second) };
    },

    /** Every wallet of a user, for the admin's user card. */
    async ofUser(userId: number, q: typeof db = db) {
      return (await userWalletsWithAccounts(q, userId)).map(toAdminWallet);
    },
  };
}

export type WalletsService = ReturnType<typeof createWalletsService>;
