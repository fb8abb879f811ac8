import { decisionText, formatAmount, limitRefusalText, type Request, type RequestStatusEvent } from '@adena/contract';
import type { Db } from '../../db/client';
import type { RequestType } from '../../db/schema';
import { readSnapshot } from '../../db/snapshot';
import { AppError } from '../../lib/app-error';
import { claimKey, type IdempotencyKey, keyReused, once, storeKey } from '../../lib/idempotency';
import { toNumber } from '../../lib/money';
import type { Realtime } from '../../plugins/realtime';
import type { AuditRecorder } from '../audit/audit.service';
import type { PendingNotice } from '../notifications/telegram-notices.service';
import { type CurrencyType, post, rethrowMoneyError, serviceAccount, type WalletBalance, walletAccount } from '../ledger/ledger.service';
import type { Caller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { ownRequestRefused, type ShiftService } from '../shift/shift.service';
import { noWebhooks, type WebhookOutbox } from '../webhooks/webhooks.service';
import { toAdminRequest, toDashboard, toRequest, toRequestStatusEvent, toUserCardRequest } from './requests.mapper';
import { stepUpRefused, type UseUpCode } from '../two-factor/two-factor.service';
import { type AdminRequestRow, type QueueFilters, requestsRepository as repo, type Tx } from './requests.repository';

const notFound = () => new AppError('NOT_FOUND', { message: 'Заявка не найдена', errors: { id: ['Заявка не найдена'] } });
const notPending = (status: string) =>
  new AppError('REQUEST_NOT_PENDING', {
    message: status === 'cancelled' ? 'Заявка уже отменена' : 'Заявка уже обработана',
    errors: { id: [status === 'cancelled' ? 'Заявка уже отменена' : 'Заявка уже обработана'] },
    body: { status },
  });

const BLOCKED_PAYOUT = 'Игрок заблокирован: его вывод можно только отклонить (сумма вернётся на кошелёк)';
const blockedPayout = () => new AppError('CONFLICT', { message: BLOCKED_PAYOUT, errors: { id: [BLOCKED_PAYOUT] } });

const balanceEvent = (w: WalletBalance) => ({ gamesserver_id: w.gamesserverId, balance: toNumber(w.balance), balance_second: toNumber(w.balanceSecond) });

/** The bearer of a deposit or withdrawal, checked inside its one statement. */
export interface Bearer {
  tokenHash: string;
}

export interface OpeningInput {
  gameServerId: number;
  amount: number;
  currency: CurrencyType;
}

/** Records Telegram notices in a transaction and sends them after COMMIT (notifications' one notices service). */
export interface NoticeSender {
  deliver(notices: PendingNotice[]): void;
  recordDecision(trx: Tx, d: { userId: number; walletId: number; gameServerId: number; requestId: number; text: string }): Promise<PendingNotice | null>;
}

export interface RequestsServiceDeps {
  db: Db['kysely'];
  realtime: Pick<Realtime, 'publish'>;
  notices: NoticeSender;
  audit: AuditRecorder;
  /** The operators' shift (decision record 0023): the claim guard of decisions and the operators' feed. */
  shift?: Pick<ShiftService, 'holdOperator' | 'guardDecision' | 'guardCancel' | 'opened' | 'decided'>;
  /** The seller's webhook outbox: request.completed and request.rejected, written with the decision. */
  webhooks?: WebhookOutbox;
  /** CLAIM_TIMEOUT_MIN: operators are told when a claim lapses. */
  claimTimeoutMin: number;
  /** The moment a claim's lapse is judged at: the shift's clock (a test's when given). */
  now?: () => Date;
}

/** What a user's card shows of their requests. */
const CARD_LIMIT = 50;

/**
 * Deposits and withdrawals and the operators' queue. A withdrawal holds its amount on the
 * server's payout account in the same transaction that creates it; an operator's completion pays
 * it out to cash, a rejection or the player's cancel returns it. A deposit moves nothing until an
 * operator completes it (cash to wallet). Realtime events and Telegram messages leave after COMMIT.
 */
/** PRODUCT.md section 8: a player has at most 5 pending deposits per game server (request_open). */
export const TOO_MANY_PENDING = 'У вас уже 5 заявок на пополнение в ожидании на этом сервере. Дождитесь их обработки или отмените одну';

// Long: a factory of small functions, one per call on a request; each is short.
export function createRequestsService({ db, realtime, notices, audit, shift, webhooks = noWebhooks, claimTimeoutMin, now: clock = () => new Date() }: RequestsServiceDeps) {
  function publish(userId: number, wallets: WalletBalance[]) {
    for (const w of wallets) realtime.publish(userId, 'balance', balanceEvent(w));
  }

  function deliver(notice: PendingNotice) {
    if (notice.chatId !== null) notices.deliver([notice]);
  }

  /** In the decision's transaction: the Telegram notice of a player who linked the bot, and the realtime event to send after COMMIT. */
  async function announceDecision(trx: Tx, after: AdminRequestRow) {
    const event = toRequestStatusEvent(after);
    const notice = await notices.recordDecision(trx, {
      userId: after.user_id,
      walletId: after.wallet_id,
      gameServerId: after.gamesserver_id,
      requestId: after.id,
      text: decisionText(event, (n) => formatAmount(n, '\u00a0'), after.gamesserver),
    });
    return { event, notice };
  }

  /** After COMMIT: the new balance, the decision itself, then the Telegram message. */
  function publishDecision(userId: number, wallets: WalletBalance[], decision: { event: RequestStatusEvent; notice: PendingNotice | null }) {
    publish(userId, wallets);
    realtime.publish(userId, 'request_status', decision.event);
    if (decision.notice) deliver(decision.notice);
  }

  /**
   * The 422 of an amount outside the server's limits, from the DETAIL 'min,max' request_open gives (a server
   * whose settings hold no limits for this currency and direction takes nothing: functions/requests.sql).
   */
  function limitError(type: RequestType, currency: CurrencyType, detail: string) {
    const [min, max] = detail.split(',').map((v) => BigInt(v)) as [bigint, bigint];
    return new AppError('LIMIT_EXCEEDED', {
      message: type === 'input' ? 'Сумма пополнения вне пределов сервера' : 'Сумма вывода вне пределов сервера',
      errors: { amount: [limitRefusalText({ min, max }, currency)] },
    });
  }

  /** Opens a deposit or withdrawal in one statement; a replay of a keyed call publishes and sends nothing. */
  async function open(bearer: Bearer, type: RequestType, input: OpeningInput, idem?: IdempotencyKey, useUpCode?: UseUpCode) {
    const opening = { tokenHash: bearer.tokenHash, type, codeChecked: useUpCode !== undefined, ...input };
    // With a second-factor code: the code is used up in the withdrawal's transaction and comes back if it is refused.
    const opened = useUpCode
      ? repo.transaction(db, async (trx) => {
          await useUpCode(trx);
          return repo.open(trx, opening, idem);
        })
      : repo.open(db, opening, idem);
    const row = await opened.catch((err: { code?: string; detail?: string }) => {
      if (err?.code === 'AW2FA') throw stepUpRefused();
      if (err?.code === 'AW422') throw limitError(type, input.currency, err.detail ?? '0,0');
      if (err?.code === 'AWKEY') throw keyReused();
      if (err?.code === 'AW429') throw new AppError('CONFLICT', { message: TOO_MANY_PENDING, errors: { amount: [TOO_MANY_PENDING] } });
      return rethrowMoneyError(err);
    });
    // No object spreads on this path: `{ ...row, … }` of request_open's 24 columns cost microseconds a call.
    const request = toRequest(row);
    if (!row.replayed) {
      // A withdrawal's hold moved the balance; a deposit moved none, but the player's other devices list it at once.
      publish(row.user_id, [{ walletId: row.wallet_id, gamesserverId: row.gamesserver_id, balance: BigInt(row.balance), balanceSecond: BigInt(row.balance_second) }]);
      if (row.notice_id !== null) {
        deliver({ id: BigInt(row.notice_id), chatId: row.notice_chat_id === null ? null : BigInt(row.notice_chat_id), text: row.notice_text! });
      }
      shift?.opened({
        id: row.id,
        type: row.type,
        status: row.status,
        gamesserver_id: row.gamesserver_id,
        currency_type: row.currency_type,
        amount: BigInt(row.amount),
        vipUntil: row.vip_until === null ? null : new Date(row.vip_until),
      });
    }
    return type === 'output' ? { success: Object.assign(request, { enter_currency: request.amount }) } : { success: request };
  }

  /** The locked row before the decision and the re-read row after it, as the audit log keeps them. */
  function recordDecision(trx: Tx, caller: Caller, action: string, id: number, before: AuditedFields, after: AuditedFields) {
    const snapshot = (r: AuditedFields) => ({ status: r.status, amount: r.amount.toString(), comment: r.comment, processed_by: r.processed_by });
    return audit.record(trx, {
      adminId: caller.user.id,
      action,
      entityType: 'balance_request',
      entityId: id,
      before: snapshot(before),
      after: snapshot(after),
    });
  }

  return {
    deposit: (bearer: Bearer, input: OpeningInput, idem?: IdempotencyKey) => open(bearer, 'input', input, idem) as Promise<{ success: Request }>,

    /**
     * `useUpCode`: uses up the caller's X-Two-Factor-Code in the withdrawal's transaction (TwoFactorService.requireStepUpIn);
     * without it, a user with TOTP on is refused in the statement.
     */
    withdraw: (bearer: Bearer, input: OpeningInput, idem?: IdempotencyKey, useUpCode?: UseUpCode) =>
      open(bearer, 'output', input, idem, useUpCode) as Promise<{ success: Request & { enter_currency: number } }>,

    /** The player's own pending request is cancelled; a withdrawal's hold comes back to the wallet. */
    cancel: (caller: Caller, id: number, idem?: IdempotencyKey) =>
      once(async () => {
        const userId = caller.user.id;
        const out = await repo.transaction(db, async (trx) => {
          await claimKey(trx, userId, idem);
          const r = await repo.lock(trx, id, userId);
          if (!r) throw notFound();
          // The session checked once the request's row is held (an operator's claim or decision may hold it meanwhile),
          // under the player's row, taken after the request's as an operator's decision takes them: a block or the
          // owner's password change the cancel waited for has ended a thief's session (401), and a deposit the owner
          // paid the cashier for is not cancelled after it.
          await requireLiveSession(trx, caller);
          if (r.status !== 'pending') throw notPending(r.status);
          shift?.guardCancel(r);
          await repo.finish(trx, r.id, { status: 'cancelled', processedBy: null });
          // A deposit moved no balance; its `balance` event lets the player's other devices drop it from their lists.
          const wallets = r.type === 'output' ? (await refund(trx, r, userId, 'withdrawal_cancel')).wallets : [await repo.heldBalance(trx, r.wallet_id)];
          const answer = { success: r.id };
          await storeKey(trx, userId, idem, answer);
          return { answer, wallets };
        });
        publish(userId, out.wallets);
        shift?.decided(id);
        return out.answer;
      }),

    /** Hides a finished entry from the player's own history; the row stays for operators and the audit. */
    async hide(caller: Caller, id: number) {
      // As a cancel: the request's row first, then the session under the player's row, in one transaction.
      const hidden = await repo.transaction(db, async (trx) => {
        const row = await repo.hide(trx, caller.user.id, id);
        if (row) await requireLiveSession(trx, caller);
        return row;
      });
      if (hidden) return { success: hidden.id };
      const r = await repo.status(db, caller.user.id, id);
      if (!r) throw notFound();
      throw new AppError('REQUEST_NOT_PENDING', {
        message: 'Заявка ещё ждёт обработки: сначала отмените её',
        errors: { id: ['Заявка ещё ждёт обработки: сначала отмените её'] },
        body: { status: r.status },
      });
    },

    async history(caller: Caller, q: { page: number; perPage: number; gameServerId?: number }) {
      // Reading the history is reading the notices of finished requests. Cleared before the page is read:
      // a decision committed in between is then on the page, or lights the dot again, never lost unseen.
      await repo.clearMessages(db, caller.user.id, q.gameServerId);
      const { rows, total } = await readSnapshot(db, (s) => repo.history(s, caller.user.id, q));
      return { data: rows.map(toRequest), total };
    },

    /** A user's newest requests, hidden ones included (the admin's user card). */
    async ofUser(userId: number, q: typeof db = db) {
      return (await repo.ofUser(q, userId, CARD_LIMIT)).map(toUserCardRequest);
    },

    // ── operators ──

    async queue(f: Omit<QueueFilters, 'claimedBy'> & { claimedBy?: number }) {
      const now = clock();
      // An operator's own claims: the standing ones only (the admin area renews them; a lapsed one is not taken back unasked).
      const claimedBy = f.claimedBy === undefined ? undefined : { id: f.claimedBy, claimedAfter: new Date(now.getTime() - claimTimeoutMin * 60_000) };
      const { rows, total } = await readSnapshot(db, (s) => repo.queue(s, { ...f, claimedBy }));
      return { data: rows.map((r) => toAdminRequest(r, now, claimTimeoutMin)), total };
    },

    /**
     * Completes a pending request: a deposit is credited, a withdrawal's hold is paid out. Like a
     * rejection, it ends with a `balance` event even when the balances did not move (a paid-out
     * withdrawal), so the player's open history shows the new status at once.
     */
    async complete(caller: Caller, id: number, comment?: string) {
      const out = await repo.transaction(db, async (trx) => {
        // A blocked account's withdrawal (filed by a thief, to their own character) is not paid out in game:
        // only rejected, back to the wallet. A deposit is credited: its adena already reached the cashier.
        // The player's row is held before the request's, the order every operator action and a block keep
        // (users, then requests); a request's owner and type never change, so they are read first unlocked.
        // The operator's row and the player's are taken in one statement in id order (shift.holdOperator),
        // as the operator's block or VIP change of the player takes them: taken one at a time, operator first,
        // each side could hold one row and wait for the other (a deadlock: one call 503, a block lost to a payout).
        const owner = await repo.ownerAndType(trx, id);
        const player = await shift?.holdOperator(trx, caller, owner?.user_id);
        const blocked = owner?.type === 'output' && (shift ? player?.blocked_at != null : await repo.playerBlocked(trx, owner.user_id));
        const r = await repo.lock(trx, id);
        if (!r) throw notFound();
        if (r.status !== 'pending') throw notPending(r.status);
        if (r.user_id === caller.user.id) throw ownRequestRefused();
        await shift?.guardDecision(trx, r, caller);
        if (blocked) throw blockedPayout();
        if (r.type === 'input') {
          await post(trx, {
            kind: 'deposit',
            refType: 'balance_request',
            refId: r.id,
            actorUserId: caller.user.id,
            legs: [
              { account: serviceAccount('cash', r.gamesserver_id, r.currency_type), amount: -r.amount },
              { account: walletAccount(r.wallet_id, r.gamesserver_id, r.currency_type), amount: r.amount },
            ],
          });
        } else {
          await post(trx, {
            kind: 'withdrawal_payout',
            refType: 'balance_request',
            refId: r.id,
            actorUserId: caller.user.id,
            legs: [
              { account: serviceAccount('payout', r.gamesserver_id, r.currency_type), amount: -r.amount },
              { account: serviceAccount('cash', r.gamesserver_id, r.currency_type), amount: r.amount },
            ],
          });
        }
        await repo.finish(trx, r.id, { status: 'completed', processedBy: caller.user.id, comment: comment || null });
        const wallet = await repo.flagMessage(trx, r.wallet_id);
        const after = (await repo.adminById(trx, id))!;
        await recordDecision(trx, caller, 'request.complete', r.id, r, after);
        await webhooks.record(trx, r.user_id, 'request.completed', { request: toRequest(after) });
        return { userId: r.user_id, wallets: [wallet], after, decision: await announceDecision(trx, after) };
      });
      publishDecision(out.userId, out.wallets, out.decision);
      shift?.decided(id);
      return { success: toAdminRequest(out.after, new Date(), claimTimeoutMin) };
    },

    /** Rejects a pending request with a reason the player sees; a withdrawal's hold comes back. */
    async reject(caller: Caller, id: number, reason: string) {
      const out = await repo.transaction(db, async (trx) => {
        await shift?.holdOperator(trx, caller);
        const r = await repo.lock(trx, id);
        if (!r) throw notFound();
        if (r.status !== 'pending') throw notPending(r.status);
        if (r.user_id === caller.user.id) throw ownRequestRefused();
        await shift?.guardDecision(trx, r, caller);
        await repo.finish(trx, r.id, { status: 'rejected', processedBy: caller.user.id, comment: reason });
        if (r.type === 'output') await refund(trx, r, caller.user.id, 'withdrawal_reject');
        const wallet = await repo.flagMessage(trx, r.wallet_id);
        const after = (await repo.adminById(trx, id))!;
        await recordDecision(trx, caller, 'request.reject', r.id, r, after);
        await webhooks.record(trx, r.user_id, 'request.rejected', { request: toRequest(after) });
        return { userId: r.user_id, wallets: [wallet], after, decision: await announceDecision(trx, after) };
      });
      publishDecision(out.userId, out.wallets, out.decision);
      shift?.decided(id);
      return { success: toAdminRequest(out.after, new Date(), claimTimeoutMin) };
    },

    /** Pending requests per server, currency and direction, the oldest waiting, and the 24-hour medians. */
    async dashboard() {
      const now = new Date();
      // One moment: read apart, a request taken meanwhile left «1 ждёт» with no oldest one (diff review, 2026-11-29).
      const [pending, oldest, medians, servers] = await readSnapshot(db, (s) =>
        Promise.all([repo.pendingSummary(s), repo.oldestPending(s), repo.medians(s), repo.activeGameServers(s)]),
      );
      return toDashboard({ pending, oldest, medians, servers, now });
    },
  };
}

export type RequestsService = ReturnType<typeof createRequestsService>;

function refund(
  trx: Tx,
  r: { id: number; wallet_id: number; gamesserver_id: number; currency_type: 1 | 2; amount: bigint },
  actorUserId: number,
  kind: string,
) {
  return post(trx, {
    kind,
    refType: 'balance_request',
    refId: r.id,
    actorUserId,
    legs: [
      { account: serviceAccount('payout', r.gamesserver_id, r.currency_type), amount: -r.amount },
      { account: walletAccount(r.wallet_id, r.gamesserver_id, r.currency_type), amount: r.amount },
    ],
  });
}

type AuditedFields = Pick<AdminRequestRow, 'status' | 'amount' | 'comment' | 'processed_by'>;
