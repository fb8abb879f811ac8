import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import type { Database, WalletsTable } from '../../db/schema';

export type SubscriptionsDb = Kysely<Database>;
export type Q = Kysely<Database> | Transaction<Database>;
export type SubscriptionsTrx = Transaction<Database>;
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

  async serverExists(q: Q, gameServerId: number) {
    return (await q.selectFrom('gamesservers').select('id').where('id', '=', gameServerId).executeTakeFirst()) !== undefined;
  },

  /**
   * A link token of the session that asked for it, written only while that session exists; false when it
   * has ended. It dies with the session (ON DELETE CASCADE, migration 0046): a link a thief took from a
   * stolen session stops working when the owner ends that session, changes the password or logs it out.
   * The session row is locked FOR KEY SHARE by the insert, as for a socket's token: an end committed
   * meanwhile makes it find nothing, and one that comes after deletes this token with its session.
   */
  async insertLinkToken(q: Q, userId: number, sessionId: number, tokenHash: string, expiresAt: Date) {
    const { rows } = await sql<{ token_hash: string }>`
      INSERT INTO telegram_link_tokens (token_hash, user_id, expires_at, session_id)
      SELECT ${tokenHash}::text, s.user_id, ${expiresAt}::timestamptz, s.id
        FROM tokens s
       WHERE s.id = ${sessionId}::integer AND s.user_id = ${userId}::integer AND s.kind = 'access'
         FOR KEY SHARE
      RETURNING token_hash`.execute(q);
    return rows.length === 1;
  },

  /**
   * Before a link token is used: locks the row of the user it belongs to, so the link's transaction
   * takes the user's row before their link tokens, as a reset or a block does (user row, then
   * `unlinkUser`). Taking the token first deadlocked with a reset, or with another of the user's links
   * used at the same moment (each then dropping the other's token).
   */
  async lockOwnerOfLinkToken(q: Q, tokenHash: string) {
    const t = await q.selectFrom('telegram_link_tokens').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirst();
    if (t) await sql`SELECT 1 FROM users WHERE id = ${t.user_id} FOR NO KEY UPDATE`.execute(q);
  },

  /**
   * Uses a live link token once; the user it belongs to, or nothing. Not a token of a blocked user:
   * a link made before an operator's block does not tie a chat to the account while it is blocked.
   * Only while the session that asked for it lives (its row is there, not past its idle or hard end,
   * the rule token_user applies): a session ended deletes its links, and one past its end that the
   * minute's sweep has not removed yet does not link a chat either. A token without a session (none is
   * written since migration 0046) links nothing.
   */
  consumeLinkToken(q: Q, tokenHash: string) {
    return q
      .updateTable('telegram_link_tokens')
      .set({ used_at: sql`now()` })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('users').select('users.id').whereRef('users.id', '=', 'telegram_link_tokens.user_id').where('users.blocked_at', 'is', null)),
      )
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('tokens as s')
            .select('s.id')
            .whereRef('s.id', '=', 'telegram_link_tokens.session_id')
            .where('s.kind', '=', 'access')
            .where(sql<boolean>`(token_ends_at(s.expires_at, s.last_seen_at, s.idle_seconds) > now()
              OR token_ends_at(s.expires_at, s.last_seen_at, s.idle_seconds) IS NULL)`),
        ),
      )
      .returning('user_id as userId')
      .executeTakeFirst();
  },

  /**
   * Whether the token was used already and its user's chat is this one: Telegram delivered the
   * same /start again (its answer to the first was lost), and the chat is linked.
   */
  async usedForChat(q: Q, tokenHash: string, chatId: bigint) {
    const row = await q
      .selectFrom('telegram_link_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select('t.user_id')
      .where('t.token_hash', '=', tokenHash)
      .where('t.used_at', 'is not', null)
      .where('u.telegram_chat_id', '=', chatId)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Whether some account's notices come to this chat. */
  async chatLinked(q: Q, chatId: bigint) {
    const row = await q.selectFrom('users').select('id').where('telegram_chat_id', '=', chatId).limit(1).executeTakeFirst();
    return row !== undefined;
  },

  /** Drops the user's link tokens not used yet (a chat was just linked with another). */
  dropUnusedLinkTokens(q: Q, userId: number) {
    return q.deleteFrom('telegram_link_tokens').where('user_id', '=', userId).where('used_at', 'is', null).execute();
  },

  /**
   * Unlinks the user's chat, drops their unused link tokens and their notices still waiting to be
   * sent (to the chat that is no longer theirs); whether a chat was linked. The user's row is taken
   * first, before the link tokens, the order of a block, a TOTP rescue and a link (which hold the row
   * already): the player's own unlink took the tokens first and deadlocked with them (one side 503;
   * stress review 2026-11-28).
   */
  /** The user's row for update, as unlinkUser takes it (taken first by an unlink that checks its session under it). */
  async holdUser(q: Q, userId: number) {
    await sql`SELECT 1 FROM users WHERE id = ${userId} FOR NO KEY UPDATE`.execute(q);
  },

  async unlinkUser(q: Q, userId: number) {
    await telegramSubscriptionsRepository.holdUser(q, userId);
    await q.deleteFrom('telegram_link_tokens').where('user_id', '=', userId).execute();
    const r = await q
      .updateTable('users')
      .set({ telegram_chat_id: null, updated_at: sql`now()` })
      .where('id', '=', userId)
      .where('telegram_chat_id', 'is not', null)
      .executeTakeFirst();
    await dropPendingNotices(q, [userId]);
    return r.numUpdatedRows > 0n;
  },

  setChat(q: Q, userId: number, chatId: bigint | null) {
    return q.updateTable('users').set({ telegram_chat_id: chatId, updated_at: sql`now()` }).where('id', '=', userId).execute();
  },

  /** /stop: every user linked to the chat is unlinked, and their notices waiting for it are dropped. */
  async unlinkChat(q: Q, chatId: bigint) {
    const users = await q
      .updateTable('users')
      .set({ telegram_chat_id: null, updated_at: sql`now()` })
      .where('telegram_chat_id', '=', chatId)
      .returning('id')
      .execute();
    await dropPendingNotices(q, users.map((u) => u.id));
    return users;
  },
};

/**
 * Notices recorded for a chat that is no longer linked stay unsent ('no_chat'): the send re-reads the
 * user's chat as well, this only spares the queue the calls (by user, through telegram_notices_user).
 */
async function dropPendingNotices(q: Q, userIds: number[]) {
  if (userIds.length === 0) return;
  await q.updateTable('telegram_notices').set({ status: 'no_chat' }).where('user_id', 'in', userIds).where('status', '=', 'pending').execute();
}
