import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { codesRepository as repo } from './codes.repository';
import type { TelegramBot } from './telegram-bot';

export interface PendingNotice {
  id: bigint;
  chatId: bigint | null;
  text: string;
}

const amount = (v: bigint) => v.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/**
 * Call inside the transaction of a debit, after the ledger posting, with the adena balance before
 * and after it. A crossing of the wallet's telegram_price (before ≥ limit > after) is recorded
 * in that same transaction, so it exists exactly when the debit does; wallet rows are updated
 * one posting at a time, so of several parallel debits exactly one sees the crossing. Nothing
 * is sent here: give the result to `deliverNotices` after COMMIT.
 */
export async function recordBalanceDrop(
  trx: Transaction<Database>,
  v: { userId: number; walletId: number; gamesserverId: number; before: bigint; after: bigint },
): Promise<PendingNotice | null> {
  if (v.after >= v.before) return null;
  const wallet = await trx.selectFrom('wallets').select(['telegram_price']).where('id', '=', v.walletId).executeTakeFirst();
  const limit = wallet?.telegram_price ?? null;
  if (limit === null || !(v.before >= limit && v.after < limit)) return null;
  const user = await repo.user(trx, v.userId);
  const server = await repo.server(trx, v.gamesserverId);
  const text =
    `Баланс на сервере ${server?.name ?? v.gamesserverId} опустился ниже ${amount(limit)} аден: ` +
    `сейчас ${amount(v.after)} аден. Пополните баланс, чтобы продолжать выдавать коды.`;
  const row = await repo.insertNotice(trx, {
    userId: v.userId,
    walletId: v.walletId,
    gamesserverId: v.gamesserverId,
    threshold: limit,
    balance: v.after,
    chatId: user?.telegram_chat_id ?? null,
    text,
  });
  return { id: row.id, chatId: row.chat_id, text: row.text };
}

/** After COMMIT: sends each recorded notice that has a chat and writes down how it went. */
export async function deliverNotices(db: Kysely<Database>, bot: TelegramBot, notices: Array<PendingNotice | null>) {
  for (const n of notices) {
    if (!n || n.chatId === null) continue;
    if (!bot.enabled) {
      await repo.finishNotice(db, n.id, 'no_bot', null);
      continue;
    }
    const r = await bot.sendMessage(n.chatId, n.text);
    await repo.finishNotice(db, n.id, r.ok ? 'sent' : 'failed', r.ok ? null : (r.error ?? 'unknown'));
  }
}
