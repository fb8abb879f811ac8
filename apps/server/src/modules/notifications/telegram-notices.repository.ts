import { type Kysely, sql, type Transaction } from 'kysely';
import '../../db/tables/codes';
import type { Database } from '../../db/schema';
import type { TelegramNoticeStatus } from '../../db/tables/codes';

export type NoticesDb = Kysely<Database>;
export type NoticesTrx = Transaction<Database>;

/** Queries only: the notices of a wallet's balance dropping below its Telegram threshold, and of operators' decisions. */
export const telegramNoticesRepository = {
  /**
   * The database function balance_drop_notice (db/functions/requests.sql, also called by request_open)
   * records a crossing of the wallet's telegram_price (before ≥ threshold > after) in the caller's
   * transaction; the notice row, or nothing when there was no crossing.
   */
  async recordBalanceDrop(trx: NoticesTrx, v: { userId: number; walletId: number; gameServerId: number; before: bigint; after: bigint }) {
    const { rows } = await sql<{ id: bigint; chat_id: bigint | null; text: string }>`SELECT * FROM balance_drop_notice(${v.userId}, ${v.walletId},
    ${v.gameServerId}, ${String(v.before)}::bigint, ${String(v.after)}::bigint)`.execute(trx);
    return rows[0];
  },

  /**
   * An operator's decision on a request, recorded in the decision's transaction for a player who
   * linked Telegram; nothing for one who did not.
   */
  recordDecision(trx: NoticesTrx, v: { userId: number; walletId: number; gameServerId: number; requestId: number; text: string }) {
    return trx
      .insertInto('telegram_notices')
      .columns(['user_id', 'wallet_id', 'gamesserver_id', 'kind', 'request_id', 'chat_id', 'text'])
      .expression((eb) =>
        eb
          .selectFrom('users')
          .select([
            eb.val(v.userId).as('user_id'),
            eb.val(v.walletId).as('wallet_id'),
            eb.val(v.gameServerId).as('gamesserver_id'),
            sql<string>`'request_decision'`.as('kind'),
            eb.val(v.requestId).as('request_id'),
            'telegram_chat_id',
            eb.val(v.text).as('text'),
          ])
          .where('id', '=', v.userId)
          .where('telegram_chat_id', 'is not', null),
      )
      .returning(['id', 'chat_id', 'text'])
      .executeTakeFirst();
  },

  /** The chat the user has linked now (null: none). */
  async linkedChat(db: NoticesDb, userId: number) {
    const row = await db.selectFrom('users').select('telegram_chat_id').where('id', '=', userId).executeTakeFirst();
    return row?.telegram_chat_id ?? null;
  },

  /**
   * The notice while it still waits to be sent to a linked chat (undefined once settled), with the
   * chat its user has linked now: the notice goes only to that chat, the one it was recorded for.
   */
  pending(db: NoticesDb, id: bigint) {
    return db
      .selectFrom('telegram_notices as n')
      .innerJoin('users as u', 'u.id', 'n.user_id')
      .select(['n.id', 'n.user_id as userId', 'n.chat_id', 'n.text', 'n.created_at', 'u.telegram_chat_id as currentChatId'])
      .where('n.id', '=', id)
      .where('n.status', '=', 'pending')
      .where('n.chat_id', 'is not', null)
      .executeTakeFirst();
  },

  /**
   * Notices left pending between `from` and `to` with no live job (their process stopped before the job
   * was written): not those whose job is waiting (a 429's retry_after), which would fill the batch and
   * hide the lost ones behind them. Run after `abandonedNotices`, which ends those whose job gave up.
   */
  async stalePending(db: NoticesDb, from: Date, to: Date, limit: number, jobKeyPrefix: string) {
    const rows = await db
      .selectFrom('telegram_notices as n')
      .select('n.id')
      .where('n.status', '=', 'pending')
      .where('n.chat_id', 'is not', null)
      .where('n.created_at', '>', from)
      .where('n.created_at', '<', to)
      // Live jobs only (index jobs_live_key): one that gave up has been dealt with by `abandonedNotices` first.
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('jobs as j').select('j.id').where(sql<boolean>`j.key = ${jobKeyPrefix} || n.id::text`).where('j.state', 'in', ['pending', 'running']))),
      )
      .orderBy('n.id')
      .limit(limit)
      .execute();
    return rows.map((r) => BigInt(r.id));
  },

  /**
   * Pending notices nothing will send: their job gave up (failed for good: the database was away for
   * all its tries, or its processes kept stopping), or they are older than the sweep looks back with no
   * live job. Marked failed, so a notice is tried at most its job's attempts and the log purge takes it.
   */
  async abandonedNotices(db: NoticesDb, before: Date, jobKeyPrefix: string) {
    const r = await db
      .updateTable('telegram_notices as n')
      .set({ status: 'failed', error: 'gave up' })
      .where('n.status', '=', 'pending')
      .where(({ or, and, not, exists, selectFrom }) =>
        and([
          not(exists(selectFrom('jobs as j').select('j.id').where(sql<boolean>`j.key = ${jobKeyPrefix} || n.id::text`).where('j.state', 'in', ['pending', 'running']))),
          or([
            sql<boolean>`n.created_at < ${before}`,
            exists(selectFrom('jobs as j').select('j.id').where(sql<boolean>`j.key = ${jobKeyPrefix} || n.id::text`).where('j.state', '=', 'failed')),
          ]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /**
   * Settles a notice still pending, only: an unlink while the notice was with Telegram has already
   * written 'no_chat', and that record stays (the chat is no longer the player's), as does a settling
   * by another run of its job. Whether this call settled it.
   */
  async finish(q: NoticesDb | NoticesTrx, id: bigint, status: Exclude<TelegramNoticeStatus, 'pending'>, error: string | null) {
    const r = await q
      .updateTable('telegram_notices')
      .set({ status, error, sent_at: status === 'sent' ? sql`now()` : null })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  },

  /**
   * Telegram said the chat is gone (the user blocked the bot): the user's link to it ends, only if it
   * is still that chat (the player may have linked another meanwhile), and so do the user's notices
   * still waiting for it. Whether the link ended.
   */
  async unlinkGoneChat(trx: NoticesTrx, userId: number, chatId: bigint) {
    const r = await trx
      .updateTable('users')
      .set({ telegram_chat_id: null, updated_at: sql`now()` })
      .where('id', '=', userId)
      .where('telegram_chat_id', '=', chatId)
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) return false;
    await trx
      .updateTable('telegram_notices')
      .set({ status: 'no_chat' })
      .where('user_id', '=', userId)
      .where('status', '=', 'pending')
      .execute();
    return true;
  },
};
