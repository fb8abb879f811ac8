import type { TelegramBot } from './telegram-bot';
import { type NoticesDb, type NoticesTrx, telegramNoticesRepository as repo } from './telegram-notices.repository';

/** A notice recorded in a debit's transaction, to be sent after its COMMIT. */
export interface PendingNotice {
  id: bigint;
  chatId: bigint | null;
  text: string;
}

/** A debit of a wallet's adena: the balance before and after the ledger posting. */
export interface BalanceDrop {
  userId: number;
  walletId: number;
  gameServerId: number;
  before: bigint;
  after: bigint;
}

export interface TelegramNoticesDeps {
  db: NoticesDb;
  bot: TelegramBot;
  log: { warn(obj: unknown, msg?: string): void };
}

/**
 * The balance threshold notices, for every module that debits a wallet: `recordBalanceDrop` in
 * the debit's transaction, `deliver` after COMMIT, `settle` at shutdown. One instance per process
 * (app.ts), so `settle` waits for every message promised by any module.
 */
export function createTelegramNotices({ db, bot, log }: TelegramNoticesDeps) {
  const inFlight = new Set<Promise<void>>();

  async function send(notices: Array<PendingNotice | null>) {
    for (const n of notices) {
      if (!n || n.chatId === null) continue;
      if (!bot.enabled) {
        await repo.finish(db, n.id, 'no_bot', null);
        continue;
      }
      const r = await bot.sendMessage(n.chatId, n.text);
      await repo.finish(db, n.id, r.ok ? 'sent' : 'failed', r.ok ? null : (r.error ?? 'unknown'));
    }
  }

  return {
    /**
     * Call inside the transaction of a debit, after the ledger posting. The notice exists exactly
     * when the debit does; wallet rows are updated one posting at a time, so of several parallel
     * debits exactly one sees the crossing. Nothing is sent here.
     */
    async recordBalanceDrop(trx: NoticesTrx, drop: BalanceDrop): Promise<PendingNotice | null> {
      if (drop.after >= drop.before) return null;
      const row = await repo.recordBalanceDrop(trx, drop);
      return row ? { id: BigInt(row.id), chatId: row.chat_id === null ? null : BigInt(row.chat_id), text: row.text } : null;
    },

    /**
     * Call inside the transaction of an operator's decision: a notice for a player who linked
     * Telegram (null for one who did not), sent by `deliver` after COMMIT.
     */
    async recordDecision(
      trx: NoticesTrx,
      d: { userId: number; walletId: number; gameServerId: number; requestId: number; text: string },
    ): Promise<PendingNotice | null> {
      const row = await repo.recordDecision(trx, d);
      return row ? { id: BigInt(row.id), chatId: row.chat_id === null ? null : BigInt(row.chat_id), text: row.text } : null;
    },

    /** After COMMIT. Telegram is slow and may be down: the player's answer never waits for it. */
    deliver(notices: Array<PendingNotice | null>) {
      if (!notices.some((n) => n && n.chatId !== null)) return;
      const p = send(notices)
        .catch((err) => log.warn({ err }, 'telegram notice failed'))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    },

    /** Lets the messages already promised go out before the process exits. */
    async settle() {
      await Promise.all([...inFlight]);
    },
  };
}

export type TelegramNotices = ReturnType<typeof createTelegramNotices>;
