import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { codesRepository as repo } from './codes.repository';
import type { TelegramBot } from './telegram-bot';

export interface PendingNotice {
  id: bigint;
  chatId: bigint | null;
  text: string;
}

/**
 * Call inside the transaction of a debit, after the ledger posting, with the adena balance before
 * and after it. The database function balance_drop_notice (migration 0010, also called by
 * request_open) records a crossing of the wallet's telegram_price (before ≥ limit > after) in that
 * same transaction, so it exists exactly when the debit does; wallet rows are updated one posting
 * at a time, so of several parallel debits exactly one sees the crossing. Nothing is sent here:
 * give the result to `deliverNotices` after COMMIT.
 */
export async function recordBalanceDrop(
  trx: Transaction<Database>,
  v: { userId: number; walletId: number; gamesserverId: number; before: bigint; after: bigint },
): Promise<PendingNotice | null> {
  if (v.after >= v.before) return null;
  const { rows } = await sql<{ id: bigint; chat_id: bigint | null; text: string }>`SELECT * FROM balance_drop_notice(${v.userId}, ${v.walletId},
    ${v.gamesserverId}, ${String(v.before)}::bigint, ${String(v.after)}::bigint)`.execute(trx);
  const row = rows[0];
  return row ? { id: BigInt(row.id), chatId: row.chat_id === null ? null : BigInt(row.chat_id), text: row.text } : null;
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
