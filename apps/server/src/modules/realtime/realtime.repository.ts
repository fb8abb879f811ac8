import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';

/** Socket tokens: rows of `tokens` of kind 'realtime'. */
export function createRealtimeRepository(db: Kysely<Database>) {
  return {
    /** Stores a new socket token of the user; their expired ones are of no use to anyone and go in the same transaction. */
    replaceExpiredTokens(userId: number, tokenHash: string, expiresAt: Date) {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('tokens').where('user_id', '=', userId).where('kind', '=', 'realtime').where('expires_at', '<', new Date()).execute();
        await trx.insertInto('tokens').values({ user_id: userId, kind: 'realtime', token_hash: tokenHash, expires_at: expiresAt }).execute();
      });
    },
  };
}
