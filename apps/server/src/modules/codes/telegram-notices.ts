// The requests module's old import path, kept only so it compiles until it takes the process's one
// TelegramNotices (notifications/telegram-notices.service.ts) from app.ts.
import type { NoticesDb } from '../notifications/telegram-notices.repository';
import { createTelegramNotices, type PendingNotice } from '../notifications/telegram-notices.service';
import type { TelegramBot } from '../notifications/telegram-bot';

export type { PendingNotice } from '../notifications/telegram-notices.service';

/** Sends the notices now; rejects with the first failure, as before. */
export async function deliverNotices(db: NoticesDb, bot: TelegramBot, notices: Array<PendingNotice | null>) {
  let failure: unknown;
  const warn = (obj: unknown) => {
    failure ??= (obj as { err?: unknown }).err;
  };
  const once = createTelegramNotices({ db, bot, log: { warn } });
  once.deliver(notices);
  await once.settle();
  if (failure !== undefined) throw failure;
}
