import { type JobContext, type Jobs, RetryAfter } from '../jobs/jobs.service';
import { TELEGRAM_LANE, type TelegramBot } from './telegram-bot';
import { type NoticesDb, type NoticesTrx, telegramNoticesRepository as repo } from './telegram-notices.repository';

/** A notice recorded in a debit's transaction, to be sent by the job queue. */
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
  jobs: Pick<Jobs, 'enqueue' | 'register' | 'every' | 'wake'>;
  log: { warn(obj: unknown, msg?: string): void };
  now?: () => Date;
}

export const NOTICE_JOB = 'telegram.notice';
const NOTICE_SWEEP = 'telegram.notice-sweep';
/**
 * A notice is sent at most this long after it was recorded: news of a balance or a decision hours
 * old is no longer worth a message. Telegram failing (5xx, the network) or rate-limiting (429) is
 * tried again until then; a try that would come later ends the notice as failed.
 */
export const NOTICE_MAX_AGE_MS = 6 * 60 * 60_000;
/** The first retry after a network error or a 5xx this long after it; each next gap twice the one before, up to `RETRY_MAX_GAP_MS`. */
const RETRY_FIRST_MS = 1000;
/** At most this long between two tries: once Telegram answers again, a notice is at most this late. */
const RETRY_MAX_GAP_MS = 15 * 60_000;
/** The queue's own bound on the tries (a 429's wait counts as one): the age bound ends a notice first. */
export const NOTICE_ATTEMPTS = 1000;
const SWEEP_EVERY_MS = 60_000;
/** A pending notice this old has lost its job (its process stopped between COMMIT and enqueue). */
const SWEEP_AFTER_MS = 30_000;
/** Older pending notices are not sent any more: the sweep ends those without a live job as failed. */
const SWEEP_WITHIN_MS = NOTICE_MAX_AGE_MS;

/**
 * A message to a chat about its own link, not about a wallet: the notices moved to another chat, or turned off on
 * the site. Sent by the queue with the notices' retries (429's retry_after, a 5xx or the network backing off) for
 * at most `CHAT_NOTICE_MAX_AGE_MS`: the chat's owner may learn only this way that someone else took their notices.
 */
export const CHAT_NOTICE_JOB = 'telegram.chat-notice';
export const CHAT_NOTICE_MAX_AGE_MS = NOTICE_MAX_AGE_MS;
/** A chat notice's job: the chat and the text, nothing secret (no token, no user's data beyond the chat). */
export interface ChatNoticePayload {
  chatId: string;
  text: string;
  /** Whose chat it was: linked to that chat again by the time it goes, the notice is no longer true and is dropped. */
  userId?: number;
}
/** What the subscriptions service needs of the queue for a chat notice. */
export interface ChatNotices {
  /** In the transaction that moved or unlinked the chat: the message exists exactly when that commits. */
  enqueue(trx: NoticesTrx, userId: number, chatId: bigint, text: string): Promise<void>;
  /** After that COMMIT: this process's Telegram worker looks at once. */
  wake(): void;
}

const JOB_KEY_PREFIX = 'telegram-notice:';
const jobKey = (id: bigint) => `${JOB_KEY_PREFIX}${id}`;

/**
 * The balance threshold notices, for every module that debits a wallet: `recordBalanceDrop` in
 * the debit's transaction (the notice row and its job exist exactly when the debit does),
 * `deliver` after COMMIT for notices recorded by SQL (request_open), which enqueues the same job
 * under the same key, so a notice has at most one live job. The job queue sends it with retries:
 * Telegram's 429 is honoured through `RetryAfter(retry_after)`, a network failure or 5xx backs
 * off (1 s, 2 s, 4 s … at most 15 min apart), both until the notice is `NOTICE_MAX_AGE_MS` (6 hours)
 * old; a 4xx is final (a 403 or `chat not found` also unlinks the chat). A notice goes only to
 * the chat its user has linked at send time. A sweep every minute enqueues notices left pending
 * by a process that stopped before it enqueued them, and marks failed those nothing will send (their
 * job gave up, or older than 6 hours with no job). A send is marked right after Telegram
 * accepts it, tried again while the database is away (JobContext.persist); a process dying between
 * the two, or an outage longer than the job's lease, sends it again (at-least-once).
 */
// Long: a factory of short functions sharing the bot and the outbox of notices.
export function createTelegramNotices({ db, bot, jobs, log, now = () => new Date() }: TelegramNoticesDeps) {
  const inFlight = new Set<Promise<unknown>>();
  // The job outlives the notice's own bound by a minute, so the handler, not the queue, ends a notice for its age.
  const enqueue = (q: NoticesDb | NoticesTrx, id: bigint) =>
    jobs.enqueue(q, NOTICE_JOB, { id: String(id) }, { key: jobKey(id), maxAttempts: NOTICE_ATTEMPTS, maxAgeMs: NOTICE_MAX_AGE_MS + 60_000 });

  async function send({ id: raw }: { id: string }, ctx: Pick<JobContext, 'attempt' | 'persist'>) {
    const id = BigInt(raw);
    const notice = await repo.pending(db, id);
    if (!notice || notice.chat_id === null) return; // sent, failed or dropped meanwhile
    const chatId = BigInt(notice.chat_id);
    // The chat the notice was recorded for may have been unlinked since (from the site, /stop, a
    // password reset of a stolen account) or replaced: it is not that chat's to read any more.
    if (notice.currentChatId === null || BigInt(notice.currentChatId) !== chatId) {
      await repo.finish(db, id, 'no_chat', null);
      return;
    }
    if (!bot.enabled) {
      await repo.finish(db, id, 'no_bot', null);
      return;
    }
    // A job that comes late (the sweep found it lost, every process was down, a backlog) sends nothing stale.
    const deadline = new Date(notice.created_at).getTime() + NOTICE_MAX_AGE_MS;
    if (now().getTime() >= deadline) {
      await repo.finish(db, id, 'failed', 'expired');
      return;
    }
    // The chat was read just above, with nothing awaited since. An unlink during the call itself cannot
    // stop it (no transaction is held open across Telegram's answer): the unlink's 'no_chat' then
    // stays, since the notice is settled only while pending.
    const r = await bot.sendMessage(chatId, notice.text);
    if (r.ok) {
      // Sent: recorded even through a short outage of the database, or the job would send it again.
      await ctx.persist(() => repo.finish(db, id, 'sent', null));
      return;
    }
    if (r.transient && ctx.attempt < NOTICE_ATTEMPTS) {
      // Telegram's 429 names its wait; a network failure or a 5xx (an outage of Telegram or of this
      // host's network, minutes or hours) waits twice as long each time, up to the cap.
      const wait = r.retryAfterMs ?? Math.min(RETRY_FIRST_MS * 2 ** (ctx.attempt - 1), RETRY_MAX_GAP_MS);
      if (now().getTime() + wait <= deadline) throw new RetryAfter(wait, r.error ?? 'telegram send failed');
    }
    if (r.chatGone) {
      // Blocked bot, deleted account, unknown chat: the player is no longer linked, so the site
      // offers the bot's link again instead of «Telegram подключён».
      await db.transaction().execute(async (trx) => {
        await repo.finish(trx, id, 'failed', r.error ?? 'chat gone');
        await repo.unlinkGoneChat(trx, notice.userId, chatId);
      });
      return;
    }
    await repo.finish(db, id, 'failed', r.error ?? 'unknown');
  }

  /** A chat notice: sent once Telegram takes it; a refusal other than 429 or 5xx (a blocked bot, a chat gone) is final. */
  async function sendChatNotice(p: ChatNoticePayload, ctx: Pick<JobContext, 'attempt'>) {
    if (!bot.enabled) return;
    // The player linked this chat again while the notice waited out Telegram: «отключены»/«перенесены» would be
    // the chat's last word about notices that are on (the bot's «Готово» came first).
    if (p.userId !== undefined) {
      const linked = await repo.linkedChat(db, p.userId);
      if (linked !== null && String(linked) === p.chatId) return;
    }
    const r = await bot.sendMessage(BigInt(p.chatId), p.text);
    if (r.ok) return;
    if (r.retryAfterMs !== undefined) throw new RetryAfter(r.retryAfterMs, r.error);
    // The queue ends the job once a retry would come after its age (give_up_at).
    if (r.transient) throw new RetryAfter(Math.min(RETRY_FIRST_MS * 2 ** (ctx.attempt - 1), RETRY_MAX_GAP_MS), r.error ?? 'telegram send failed');
    if (!r.chatGone) log.warn({ error: r.error }, 'telegram chat notice refused');
  }
  const chatNotices: ChatNotices = {
    async enqueue(trx, userId, chatId, text) {
      const payload: ChatNoticePayload = { chatId: String(chatId), text, userId };
      await jobs.enqueue(trx, CHAT_NOTICE_JOB, payload, { maxAttempts: NOTICE_ATTEMPTS, maxAgeMs: CHAT_NOTICE_MAX_AGE_MS });
    },
    wake: () => jobs.wake(),
  };

  async function sweep() {
    const at = now().getTime();
    await repo.abandonedNotices(db, new Date(at - SWEEP_WITHIN_MS), JOB_KEY_PREFIX);
    const ids = await repo.stalePending(db, new Date(at - SWEEP_WITHIN_MS), new Date(at - SWEEP_AFTER_MS), 500, JOB_KEY_PREFIX);
    for (const id of ids) await enqueue(db, id);
  }

  return {
    /** The chat notices' queue, handed to the subscriptions service (app.ts). */
    chatNotices,

    /**
     * Telegram refused a chat for good (the user blocked the bot, the account is gone) on another
     * message to it (an operator's alert): that user is no longer linked to it, as a notice's refusal does.
     */
    chatGone: (userId: number, chatId: bigint) => db.transaction().execute((trx) => repo.unlinkGoneChat(trx, userId, chatId)),

    /** Registers the sends (notices, chat notices) and the sweep with the queue (app.ts, once). */
    register() {
      jobs.register(NOTICE_JOB, send, { lane: TELEGRAM_LANE });
      jobs.register(CHAT_NOTICE_JOB, sendChatNotice, { lane: TELEGRAM_LANE });
      jobs.every(NOTICE_SWEEP, SWEEP_EVERY_MS, sweep);
    },

    /**
     * Call inside the transaction of a debit, after the ledger posting. The notice exists exactly
     * when the debit does; wallet rows are updated one posting at a time, so of several parallel
     * debits exactly one sees the crossing. Its job is enqueued in the same transaction.
     */
    async recordBalanceDrop(trx: NoticesTrx, drop: BalanceDrop): Promise<PendingNotice | null> {
      if (drop.after >= drop.before) return null;
      const row = await repo.recordBalanceDrop(trx, drop);
      if (!row) return null;
      const notice = { id: BigInt(row.id), chatId: row.chat_id === null ? null : BigInt(row.chat_id), text: row.text };
      if (notice.chatId !== null) await enqueue(trx, notice.id);
      return notice;
    },

    /**
     * Call inside the transaction of an operator's decision: a notice for a player who linked
     * Telegram (null for one who did not), its job enqueued in the same transaction.
     */
    async recordDecision(
      trx: NoticesTrx,
      d: { userId: number; walletId: number; gameServerId: number; requestId: number; text: string },
    ): Promise<PendingNotice | null> {
      const row = await repo.recordDecision(trx, d);
      if (!row) return null;
      const notice = { id: BigInt(row.id), chatId: row.chat_id === null ? null : BigInt(row.chat_id), text: row.text };
      if (notice.chatId !== null) await enqueue(trx, notice.id);
      return notice;
    },

    /** After COMMIT: makes sure each notice has its job and wakes this process's workers. Never waits for Telegram. */
    deliver(notices: Array<PendingNotice | null>) {
      for (const n of notices) {
        if (!n || n.chatId === null) continue;
        const p = enqueue(db, n.id)
          // A job enqueued in the debit's transaction is not woken by that enqueue.
          .then(() => jobs.wake())
          .catch((err) => log.warn({ err }, 'telegram notice not enqueued; the sweep will'))
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
    },

    /** Lets enqueues still in flight finish before the process exits. */
    async settle() {
      await Promise.all([...inFlight]);
    },
  };
}

export type TelegramNotices = ReturnType<typeof createTelegramNotices>;
