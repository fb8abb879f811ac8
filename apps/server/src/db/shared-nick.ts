import { sql } from 'kysely';

/**
 * In a query of `balance_requests as r`: whether a wallet of another player on the request's server
 * carries the request's nick, in any letter case, Cyrillic too on any locale (nick_fold, index wallets_server_nick). Operators credit a
 * deposit by the nick that transferred the adena in game, and nicks are not unique: such a request is
 * flagged in their queue, so they check who sent it before crediting.
 */
export const nickSharedWithOthers = sql<boolean>`EXISTS (
  SELECT 1 FROM wallets o
   WHERE o.gamesserver_id = r.gamesserver_id AND nick_fold(o.nick) = nick_fold(r.nick) AND o.nick IS NOT NULL AND o.user_id <> r.user_id
)`.as('nick_shared');
