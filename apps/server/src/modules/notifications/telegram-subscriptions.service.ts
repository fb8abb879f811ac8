import { AppError } from '../../lib/app-error';
import type { Caller, SessionCaller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { hashToken, newToken } from '../../lib/tokens';
import type { TelegramBot } from './telegram-bot';
import type { ChatNotices } from './telegram-notices.service';
import type { BotCommand } from './telegram-update.mapper';
import { type Q, type SubscriptionsDb, type SubscriptionsTrx, telegramSubscriptionsRepository as repo, type WalletRow } from './telegram-subscriptions.repository';

const LINK_TOKEN_TTL_MS = 60 * 60_000;

/**
 * A recovery (password reset, support's TOTP rescue, a block of a stolen account), in its transaction:
 * the chat a thief may have linked stops getting the player's balance and request notices. The owner
 * links their own again from the wallet page. Whether a chat was linked.
 */
export const unlinkTelegramChat = (q: Q, userId: number) => repo.unlinkUser(q, userId);

export interface TelegramSubscriptionsDeps {
  db: SubscriptionsDb;
  bot: TelegramBot;
  log: { warn(obj: unknown, msg?: string): void };
  /** The caller's wallet on an active server, created on first use (the wallets module's rule). */
  wallets: { ensure(q: Q, userId: number, gameServerId: number): Promise<WalletRow> };
  clock?: () => Date;
  /**
   * The queue of chat notices (`createTelegramNotices`'s): the two notices to a chat that loses the player's
   * notices are the only word its owner gets of a thief's link or unlink, so Telegram's 429s and outages are waited out.
   */
  chatNotices: ChatNotices;
}

/** To the chat the notices left: if that was not the owner, this is how they learn of it. */
const MOVED_NOTICE =
  'Уведомления кошелька перенесены в другой чат Telegram. Если это сделали не вы, отключите их на сайте («Уведомления в Telegram» на вкладке «Коды») и смените пароль.';
const UNLINKED_NOTICE = 'Уведомления отключены на сайте. Подключить снова — «Уведомления в Telegram» на вкладке «Коды».';

/**
 * A user's Telegram chat and, per wallet, the balance below which the bot writes to it. The
 * threshold (telegram_price) sits on the wallet row but only notices read it, so its calls live
 * here with the notices rather than with the wallets' money.
 */
// Long: a factory of short functions sharing the bot and the chat's rows.
export function createTelegramSubscriptions({ db, bot, log, wallets, clock = () => new Date(), chatNotices }: TelegramSubscriptionsDeps) {
  /**
   * A change of the player's notices, in a transaction that first checks the session under the user's row
   * (requireLiveSession): a block or the owner's password change that the change waited for (on the wallet's or the
   * user's row) has ended a thief's session, and his turning the owner's notices off must not land after it (stress
   * review, round 11).
   */
  const underLiveSession = <T>(caller: Caller, change: (trx: SubscriptionsTrx) => Promise<T>, { exclusive = false } = {}) =>
    db.transaction().execute(async (trx) => {
      // An unlink writes the user's row: it takes the row for update before the check, not a shared hold it would
      // then upgrade (two at once would each wait for the other's share).
      if (exclusive) await repo.holdUser(trx, caller.user.id);
      await requireLiveSession(trx, caller);
      return change(trx);
    });

  return {
    /** The server must be active; a wallet there is created on first use. */
    async setThreshold(caller: Caller, gameServerId: number, value: number) {
      await wallets.ensure(db, caller.user.id, gameServerId);
      await underLiveSession(caller, (trx) => repo.setThreshold(trx, caller.user.id, gameServerId, BigInt(value)));
      return { success: value };
    },

    /** Clearing where nothing is set succeeds (a wallet not made yet, a hidden server's wallet); an unknown server is 404. */
    async clearThreshold(caller: Caller, gameServerId: number) {
      const cleared = await underLiveSession(caller, (trx) => repo.setThreshold(trx, caller.user.id, gameServerId, null));
      if (!cleared && !(await repo.serverExists(db, gameServerId))) {
        throw new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
      }
      return { success: null };
    },

    /**
     * The bot's deep link with a one-time token (null without a bot), and whether a chat is linked. The
     * token belongs to the caller's session and dies with it (a logout, a revoke, a password change): a
     * thief's link stops working once the owner ends the thief's session. 401 when the session ended
     * after the caller was checked.
     */
    async link(caller: SessionCaller) {
      const linked = (await repo.chatOf(db, caller.user.id)) !== null;
      if (!bot.enabled) return { url: null, linked };
      const token = newToken();
      const expiresAt = new Date(clock().getTime() + LINK_TOKEN_TTL_MS);
      if (!(await repo.insertLinkToken(db, caller.user.id, caller.sessionId, hashToken(token), expiresAt))) throw new AppError('UNAUTHENTICATED');
      return { url: bot.linkUrl(token), linked };
    },

    /**
     * The player unlinks the notice chat from the site. The chat is told, through the job queue (with its
     * retries), in the unlink's transaction: someone else in the player's session turning notices off
     * should not go unnoticed, nor should Telegram's 429 or a moment's outage drop the message.
     */
    async unlink(caller: Caller) {
      const chatId = await underLiveSession(
        caller,
        async (trx) => {
          const chat = await repo.chatOf(trx, caller.user.id);
          await repo.unlinkUser(trx, caller.user.id);
          if (chat !== null && bot.enabled) await chatNotices.enqueue(trx, caller.user.id, BigInt(chat), UNLINKED_NOTICE);
          return chat;
        },
        { exclusive: true },
      );
      if (chatId !== null && bot.enabled) chatNotices.wake();
      return { linked: false as const };
    },

    /** A command from the bot's webhook: `/start <token>` links the chat, `/stop` unlinks it. */
    async handleCommand(command: BotCommand) {
      let reply: string;
      if (command.kind === 'start') {
        // The token is spent only with the chat linked: when linking fails, Telegram delivers the
        // update again (the webhook answered an error) and the same link still works. The user's other
        // links die with it (an old one left open elsewhere must not move the notices later), and a
        // chat that loses the notices is told through the job queue, as on an unlink from the site.
        const token = command.token;
        const owner = token
          ? await db.transaction().execute(async (trx) => {
              await repo.lockOwnerOfLinkToken(trx, hashToken(token));
              const o = await repo.consumeLinkToken(trx, hashToken(token));
              if (!o) return undefined;
              const previous = await repo.chatOf(trx, o.userId);
              await repo.dropUnusedLinkTokens(trx, o.userId);
              await repo.setChat(trx, o.userId, command.chatId);
              const moved = previous !== null && BigInt(previous) !== command.chatId;
              if (moved && bot.enabled) await chatNotices.enqueue(trx, o.userId, BigInt(previous), MOVED_NOTICE);
              return { ...o, moved };
            })
          : undefined;
        if (owner) {
          reply = 'Готово: уведомления о балансе будут приходить сюда. Отключить — команда /stop.';
          if (owner.moved && bot.enabled) chatNotices.wake();
        } else if (token && (await repo.usedForChat(db, hashToken(token), command.chatId))) {
          // The same /start delivered again (Telegram did not get the answer to the first): it worked.
          reply = 'Этот чат уже подключён: уведомления о балансе приходят сюда. Отключить — команда /stop.';
        } else if (token && (await repo.chatLinked(db, command.chatId))) {
          // A link whose session has ended since (its token went with it), delivered again or tapped again: the chat
          // it linked, or another account's, still gets the notices, which the stale-link answer alone would deny.
          reply = `Ссылка устарела или уже использована, но этот чат подключён: уведомления о балансе приходят сюда. Чтобы подключить другой аккаунт, откройте на сайте ${linkSteps(bot.siteUrl)}`;
        } else if (token) {
          reply = `Ссылка устарела или уже использована. Откройте на сайте ${linkSteps(bot.siteUrl)}`;
        } else {
          // The bot opened from its name or a search, not from the site's link: nothing to link yet.
          reply = greeting(bot.siteUrl);
        }
      } else {
        const users = await db.transaction().execute((trx) => repo.unlinkChat(trx, command.chatId));
        reply = users.length ? 'Уведомления отключены.' : 'Этот чат не был подключён.';
      }
      if (bot.enabled) {
        const r = await bot.sendMessage(command.chatId, reply);
        if (!r.ok) log.warn({ error: r.error }, 'telegram reply failed');
      }
    },
  };
}

export type TelegramSubscriptions = ReturnType<typeof createTelegramSubscriptions>;

/** Where the bot's one-time link is, in the site's own names: the codes tab (apps/web: home route), its button, the dialog's. */
function linkSteps(siteUrl: string | null) {
  const where = siteUrl ? ` (${siteUrl}/?tab=codes)` : '';
  return `вкладку «Коды»${where}, нажмите «Уведомления в Telegram», затем «Подключить Telegram».`;
}

/** Plain /start: what the bot does and how to turn its messages on. */
function greeting(siteUrl: string | null) {
  return (
    'Здравствуйте! Этот бот присылает уведомления кошелька адены: когда баланс опустится ниже заданного порога ' +
    'и когда заявка на пополнение или вывод выполнена или отклонена. ' +
    `Чтобы подключить их, войдите на сайте и откройте ${linkSteps(siteUrl)}`
  );
}
