import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, TokenKind } from '../../db/schema';
import type { User } from './caller';

/** The pool or a transaction: every query runs on the handle it is given. */
export type Queryable = Kysely<Database> | Transaction<Database>;

/** Queries of the tokens table: sessions, new-password tokens and socket tokens. */
export const sessionsRepository = {
  /**
   * The live user behind a token of the given kind, or null: the rule itself is the SQL function
   * `token_user` (db/functions/sessions.sql), which money statements also use through `caller_id`.
   */
  async findUserByToken(q: Queryable, tokenHash: string, kind: TokenKind): Promise<User | null> {
    const { rows } = await sql<User>`SELECT * FROM token_user(${tokenHash}, ${kind})`.execute(q);
    return rows[0] ?? null;
  },

  /** Stores a new socket token of the user; their expired ones are of no use to anyone and go in the same transaction. */
  replaceExpiredRealtimeTokens(q: Queryable, userId: number, tokenHash: string, expiresAt: Date, now: Date) {
    const run = async (trx: Queryable) => {
      await trx.deleteFrom('tokens').where('user_id', '=', userId).where('kind', '=', 'realtime').where('expires_at', '<', now).execute();
      await trx.insertInto('tokens').values({ user_id: userId, kind: 'realtime', token_hash: tokenHash, expires_at: expiresAt }).execute();
    };
    return q.isTransaction ? run(q) : q.transaction().execute(run);
  },

  insertToken(q: Queryable, userId: number, kind: TokenKind, tokenHash: string, expiresAt: Date | null) {
    return q.insertInto('tokens').values({ user_id: userId, kind, token_hash: tokenHash, expires_at: expiresAt }).execute();
  },

  /** Whether a live token of that kind exists, whoever's it is and blocked or not (the caller decides what a block means). */
  async hasLiveToken(q: Queryable, tokenHash: string, kind: TokenKind, now: Date) {
    const row = await q
      .selectFrom('tokens')
      .select('id')
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Removes a live token and says whose it was: a token used this way works exactly once. */
  async takeToken(q: Queryable, tokenHash: string, kind: TokenKind, now: Date): Promise<number | null> {
    const row = await q
      .deleteFrom('tokens')
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .returning(['user_id'])
      .executeTakeFirst();
    return row?.user_id ?? null;
  },

  /** Deletes one token; says whether there was one. */
  async deleteToken(q: Queryable, tokenHash: string, kind: TokenKind) {
    const res = await q.deleteFrom('tokens').where('token_hash', '=', tokenHash).where('kind', '=', kind).executeTakeFirst();
    return res.numDeletedRows > 0n;
  },

  /** Every session, socket token and pending new-password token of the user. */
  deleteAllTokens(q: Queryable, userId: number) {
    return q.deleteFrom('tokens').where('user_id', '=', userId).execute();
  },
};
