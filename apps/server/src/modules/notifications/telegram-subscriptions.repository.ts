import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import type { Database, WalletsTable } from '../../db/schema';

export type SubscriptionsDb = Kysely<Database>;
export type Q = Kysely<Database> | Transaction<Database>;
export type WalletRow = Selectable<WalletsTable>;

/** Queries only: a user's Telegram chat, its one-time link tokens and each wallet's threshold. */
export const telegramSubscriptionsRepository = {
  async chatOf(q: Q, userId: number) {
    const row = await q.selectFrom('users').select('telegram_chat_id as chatId').where('id', '=', userId).executeTakeFirst();
    return row?.chatId ?? null;
  },

  /** The owner's wallet on the server: the threshold is one of its columns (telegram_price). */
  setThreshold(q: Q, ownerId: number, gameServerId: number, value: bigint | null) {
    return q
      .updateTable('wallets')
      .set({ telegram_price: value })
      .where('user_id', '=', ownerId)
      .where('gamesserver_id', '=', gameServerId)
      .returning('id')
      .executeTakeFirst();
  },

  insertLinkToken(q: Q, userId: number, tokenHash: string, expiresAt: Date) {
    return q.insertInto('telegram_link_tokens').values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt }).execute();
  },

  /** Uses a live link token once; the user it belongs to, or nothing. */
  consumeLinkToken(q: Q, tokenHash: string) {
    return q
      .updateTable('telegram_link_tokens')
      .set({ used_at: sql`now()` })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('user_id as userId')
      .executeTakeFirst();
  },

  /** Unlinks the user's chat and drops their unused link tokens; whether a chat was linked. */
  async unlinkUser(q: Q, userId: number) {
    await q.deleteFrom('telegram_link_tokens').where('user_id', '=', userId).execute();
    const r = await q
      .updateTable('users')
      .set({ telegram_chat_id: null, updated_at: sql`now()` })
      .where('id', '=', userId)
      .where('telegram_chat_id', 'is not', null)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  setChat(q: Q, userId: number, chatId: bigint | null) {
    return q.updateTable('users').set({ telegram_chat_id: chatId, updated_at: sql`now()` }).where('id', '=', userId).execute();
  },

  unlinkChat(q: Q, chatId: bigint) {
    return q
      .updateTable('users')
      .set({ telegram_chat_id: null, updated_at: sql`now()` })
      .where('telegram_chat_id', '=', chatId)
      .returning('id')
      .execute();
  },
};
