import type { Deps } from '../../app';
import { hashToken, newToken } from '../../lib/tokens';

/** A socket token lives long enough to connect; the client fetches a fresh one for every reconnect. */
export const REALTIME_TOKEN_TTL_MS = 5 * 60_000;

export function createRealtimeService({ db }: Pick<Deps, 'db'>) {
  return {
    async issueToken(userId: number) {
      const token = newToken();
      const expiresAt = new Date(Date.now() + REALTIME_TOKEN_TTL_MS);
      await db.kysely.transaction().execute(async (trx) => {
        // Expired socket tokens of this user are of no use to anyone: drop them as we go.
        await trx.deleteFrom('tokens').where('user_id', '=', userId).where('kind', '=', 'realtime').where('expires_at', '<', new Date()).execute();
        await trx.insertInto('tokens').values({ user_id: userId, kind: 'realtime', token_hash: hashToken(token), expires_at: expiresAt }).execute();
      });
      return { token, expiresAt };
    },
  };
}
