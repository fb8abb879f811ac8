import { FIELD_MESSAGES, MAX_REPORT_DAYS, type OperatorEventName } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import type { Realtime } from '../../plugins/realtime';
import type { AuditRecorder } from '../audit/audit.service';
import { type Jobs, RetryAfter } from '../jobs/jobs.service';
import { TELEGRAM_LANE, type TelegramBot } from '../notifications/telegram-bot';
import { toAdminRequest } from '../requests/requests.mapper';
import type { Caller } from '../sessions/caller';
import { sessionStillLive } from '../sessions/live-session';
import { alertText, toOperatorEvent, toStatsCsv, toStatsRow } from './shift.mapper';
import { type AlertRow, type EventRow, type ShiftDb, type ShiftTrx, shiftRepository as repo } from './shift.repository';

export const ALERT_SEND_KIND = 'operators.alert';
export const ALERT_SCAN_KIND = 'operators.alerts';
const ALERT_SCAN_EVERY_MS = 60_000;
/** Requests marked per scan; the next scan takes the rest. */
const ALERT_BATCH = 100;
/**
 * An alert is tried while Telegram fails (a 5xx, the network) or rate-limits for up to this long: the
 * handler drops it anyway once the request is decided. Before, the queue's 10 tries (about 17 minutes)
 * dropped the alerts of a longer Telegram outage for good.
 */
const ALERT_MAX_AGE_MS = 6 * 60 * 60_000;
/** Gaps between tries after a 5xx or a network failure: 1 s, 2 s, 4 s … at most 5 minutes. */
const ALERT_RETRY_FIRST_MS = 1000;
const ALERT_RETRY_MAX_GAP_MS = 5 * 60_000;
/** The queue's bound on tries; the age ends an alert first. */
const ALERT_ATTEMPTS = 1000;

export interface ShiftDeps {
  db: ShiftDb;
  realtime: Pick<Realtime, 'publishOperators'>;
  audit: AuditRecorder;
  jobs: Pick<Jobs, 'enqueue' | 'wake' | 'register' | 'every'>;
  bot: Pick<TelegramBot, 'enabled' | 'sendMessage'>;
  now: () => Date;
  /** CLAIM_TIMEOUT_MIN: a claim older than this no longer stands. */
  claimTimeoutMin: number;
  /** OPERATOR_ALERT_MIN: a request unclaimed this long gets one alert. */
  alertAfterMin: number;
  log: { warn(obj: object, msg: string): void };
  /** Telegram refused an operator's chat for good: unlink it (the notices module's rule). */
  chatGone?: (userId: number, chatId: bigint) => Promise<unknown>;
  /** ADMIN_REQUIRE_2FA (default on): alerts go only to operators with TOTP on, as the admin area and the channel do. */
  adminRequiresTwoFactor?: boolean;
}

/** A request just opened, as its opening statement answered it, with the player's VIP end. */
export type OpenedRequest = Omit<EventRow, 'vip' | 'claimed_by' | 'claimer_name'> & { vipUntil: Date | null };

interface AlertPayload {
  chatId: string;
  text: string;
  /** The operator the chat is linked to (jobs queued before it was added have none). */
  userId?: number;
  /** The request it is about (jobs queued before it was added have none). */
  requestId?: number;
}

const notFound = () => new AppError('NOT_FOUND', { message: 'Заявка не найдена', errors: { id: ['Заявка не найдена'] } });
const notPending = (status: string) => {
  const text = status === 'cancelled' ? 'Заявка уже отменена' : 'Заявка уже обработана';
  return new AppError('REQUEST_NOT_PENDING', { message: text, errors: { id: [text] }, body: { status } });
};
/** A renewal of a claim that lapsed (or was released) meanwhile. */
const CLAIM_LAPSED = 'Ваш захват истёк: возьмите заявку в работу снова';
const claimedBy = (claimer: { id: number; name: string }, text: string) =>
  new AppError('CONFLICT', { message: text, errors: { id: [text] }, body: { claimed_by: claimer } });
const who = (name: string | null, id: number) => name || `оператор №${id}`;
/** «у оператора Анна», «у оператора №5»: the same for every operator, whatever their name's gender. */
const holder = (name: string | null, id: number) => (name ? `оператора ${name}` : `оператора №${id}`);

/**
 * An operator's own deposit or withdrawal is claimed and decided by another operator: whoever
 * credits a deposit or pays out a withdrawal vouches that the adena changed hands in game.
 */
export const ownRequestRefused = () =>
  new AppError('FORBIDDEN', { message: 'Свою заявку выполняет другой оператор', errors: { id: ['Свою заявку выполняет другой оператор'] } });

/**
 * The operators' shift (PRODUCT.md section 12, decision record 0023): a request is claimed by one
 * operator before anyone meets the player in game; every operator's queue hears of new, claimed,
 * released and decided requests on `private:operators`; operators who linked the bot are alerted
 * through the job queue about VIP requests and requests left waiting; the shift report. Nothing
 * here moves money.
 */
// Long: a factory holding the claim, the feed, the alerts and the report; each function is short.
export function createShiftService(d: ShiftDeps) {
  const staleBefore = (at: Date) => new Date(at.getTime() - d.claimTimeoutMin * 60_000);

  /** After COMMIT: tells every operator's socket what happened to the request. */
  /** Sends the request's event to the operators' feed; its row (with the player's VIP), or undefined. */
  async function announce(name: OperatorEventName, id: number) {
    try {
      const row = await repo.eventRow(d.db, id, d.now());
      if (row) d.realtime.publishOperators(name, toOperatorEvent(row));
      return row;
    } catch (err) {
      d.log.warn({ err }, 'operators feed: event not sent');
      return undefined;
    }
  }

  async function answer(id: number) {
    const row = await repo.adminRow(d.db, id);
    if (!row) throw notFound();
    return { success: toAdminRequest(row, d.now(), d.claimTimeoutMin) };
  }

  /** One send job per operator with a chat, in the transaction that marked the request as alerted. */
  async function enqueueAlerts(trx: ShiftTrx, kind: 'vip' | 'overdue', rows: AlertRow[], at: Date) {
    if (rows.length === 0) return;
    const chats = await repo.operatorChats(trx, d.adminRequiresTwoFactor ?? true);
    for (const r of rows) {
      const waited = Math.max(0, Math.floor((at.getTime() - new Date(r.created_at).getTime()) / 60_000));
      const text = alertText(kind, r, waited);
      for (const c of chats) {
        const payload: AlertPayload = { chatId: String(c.chatId), text, userId: c.id, requestId: r.id };
        await d.jobs.enqueue(trx, ALERT_SEND_KIND, payload, { key: `alert:${kind}:${r.id}:${c.id}`, maxAttempts: ALERT_ATTEMPTS, maxAgeMs: ALERT_MAX_AGE_MS });
      }
    }
  }

  async function alertVip(id: number) {
    const at = d.now();
    const marked = await repo.transaction(d.db, async (trx) => {
      const row = await repo.markVip(trx, id, at, staleBefore(at));
      if (row) await enqueueAlerts(trx, 'vip', [row], at);
      return row !== undefined;
    });
    if (marked) d.jobs.wake();
  }

  /**
   * The recurring scan: overdue unclaimed requests, and VIP requests not alerted yet (a stopped process never
   * handed the alert out, or a standing claim held it back); neither while an operator's claim stands.
   */
  async function scan() {
    const at = d.now();
    for (const id of await repo.missedVip(d.db, at, staleBefore(at), ALERT_BATCH)) await alertVip(id);
    const before = new Date(at.getTime() - d.alertAfterMin * 60_000);
    const marked = await repo.transaction(d.db, async (trx) => {
      const rows = await repo.markOverdue(trx, before, at, staleBefore(at), ALERT_BATCH);
      await enqueueAlerts(trx, 'overdue', rows, at);
      return rows.length;
    });
    if (marked > 0) d.jobs.wake();
  }

  /**
   * The first lock of every operator's act on a request (claim, release, complete, reject): the
   * operator's row, shared. A block, demotion or support's second-factor rescue takes that row before
   * it releases their claims (and ends their sessions), so an act under way either lands first (and its
   * claim is then released) or finds its operator gone (403): no longer an unblocked admin, or the
   * session it came with ended meanwhile (read after the lock, so it sees what that change committed).
   * A decision passes its player (`playerId`): both rows are taken in one statement in id order, as an
   * operator's change of that player takes them, so the two never wait for each other's locks in
   * opposite orders (a deadlock, which PostgreSQL would end with an error). Answers the player's row.
   */
  async function holdOperator(trx: ShiftTrx, caller: Caller, playerId?: number) {
    const rows = await repo.lockOperator(trx, caller.user.id, playerId);
    const operator = rows.find((u) => u.id === caller.user.id);
    if (!operator?.admin || operator.blocked_at) throw new AppError('FORBIDDEN');
    if (!(await sessionStillLive(trx, caller))) throw new AppError('FORBIDDEN');
    return playerId === undefined ? undefined : rows.find((u) => u.id === playerId);
  }

  return {
    holdOperator,

    /**
     * Takes a pending request into work, or renews the caller's own claim (its CLAIM_TIMEOUT_MIN
     * counts from now again, so an operator still at work keeps it); 409 naming the operator who holds it.
     */
    /**
     * `renew`: only renews the caller's own standing claim (the admin area's keeper): a claim that lapsed
     * unseen (the operator's laptop slept) is not taken back by a renewal, since another operator may be on it;
     * 409 «Ваш захват истёк…». Without it, a free or lapsed request is taken, the caller's own renewed.
     */
    async claim(caller: Caller, id: number, { renew = false }: { renew?: boolean } = {}) {
      const at = d.now();
      const taken = await repo.transaction(d.db, async (trx) => {
        await holdOperator(trx, caller);
        const held = await repo.lockClaim(trx, id);
        const row = await repo.claim(trx, id, caller.user.id, at, staleBefore(at), renew);
        if (!row) return false;
        // A renewal of one's own claim is not written to the log (the open queue renews every 4
        // minutes); taking it, or taking over a lapsed claim, is, with whose claim it was.
        if (held?.claimed_by === caller.user.id) return true;
        await d.audit.record(trx, {
          adminId: caller.user.id,
          action: 'request.claim',
          entityType: 'balance_request',
          entityId: id,
          before: held?.claimed_by ? { claimed_by: held.claimed_by, claimed_at: held.claimed_at?.toISOString() ?? null } : null,
          after: { claimed_by: caller.user.id, claimed_at: at.toISOString() },
        });
        return true;
      });
      if (!taken) {
        const s = await repo.claimState(d.db, id);
        if (!s) throw notFound();
        if (s.status !== 'pending') throw notPending(s.status);
        if (s.user_id === caller.user.id) throw ownRequestRefused();
        if (renew && (s.claimed_by === null || s.claimed_by === caller.user.id)) {
          throw new AppError('CONFLICT', { message: CLAIM_LAPSED, errors: { id: [CLAIM_LAPSED] } });
        }
        if (s.claimed_by !== null) {
          const name = who(s.claimer_name, s.claimed_by);
          throw claimedBy({ id: s.claimed_by, name }, `Заявка уже в работе у ${holder(s.claimer_name, s.claimed_by)}`);
        }
        // Released between the two statements: the operator may simply try again.
        throw new AppError('CONFLICT', { message: 'Заявка только что изменилась, попробуйте ещё раз', errors: { id: ['Заявка только что изменилась'] } });
      }
      void announce('request_claimed', id);
      return answer(id);
    },

    /**
     * An operator blocked, no longer an admin or with TOTP turned off lets go of every request they hold, in
     * that change's transaction: each is a release by the operator who made the change (audited), so the queue
     * need not wait CLAIM_TIMEOUT_MIN for claims nobody will finish. The player's cancel stays refused
     * (claim_dropped_by, guardCancel): the operator may have handed the adena over already, and a cancel then
     * refunded the hold (an operator who demoted the one holding their own withdrawal got it twice). The
     * released ids, for announceReleased.
     */
    async releaseAllOf(trx: ShiftTrx, operatorId: number, byAdminId: number) {
      const held = await repo.lockClaimsOf(trx, operatorId);
      if (held.length === 0) return [];
      await repo.dropClaims(
        trx,
        held.map((h) => h.id),
        operatorId,
      );
      for (const h of held) {
        await d.audit.record(trx, {
          adminId: byAdminId,
          action: 'request.release',
          entityType: 'balance_request',
          entityId: h.id,
          before: { claimed_by: operatorId, claimed_at: h.claimed_at?.toISOString() ?? null },
          after: { claimed_by: null, claimed_at: null, claim_dropped_by: operatorId },
        });
      }
      return held.map((h) => h.id);
    },

    /** After COMMIT: the operators' feed hears of each request releaseAllOf freed. */
    announceReleased(ids: number[]) {
      for (const id of ids) void announce('request_released', id);
    },

    /**
     * Lets a claimed request go: its claimer, or anyone once the claim lapsed; never its own player,
     * who could then cancel a withdrawal an operator had paid out in game without pressing «Выполнено».
     */
    async release(caller: Caller, id: number) {
      const at = d.now();
      await repo.transaction(d.db, async (trx) => {
        await holdOperator(trx, caller);
        const s = await repo.lockClaim(trx, id);
        if (!s) throw notFound();
        if (s.user_id === caller.user.id) throw ownRequestRefused();
        if (s.status !== 'pending') throw notPending(s.status);
        if (s.claimed_by === null) throw new AppError('CONFLICT', { message: 'Заявку никто не взял в работу', errors: { id: ['Заявку никто не взял в работу'] } });
        if (s.claimed_by !== caller.user.id && s.claimed_at! >= staleBefore(at)) {
          const state = await repo.claimState(trx, id);
          const name = who(state?.claimer_name ?? null, s.claimed_by);
          throw claimedBy(
            { id: s.claimed_by, name },
            `Заявка в работе у ${holder(state?.claimer_name ?? null, s.claimed_by)}; снять её может этот оператор или любой оператор через ${d.claimTimeoutMin} мин после взятия`,
          );
        }
        await repo.clearClaim(trx, id);
        await d.audit.record(trx, {
          adminId: caller.user.id,
          action: 'request.release',
          entityType: 'balance_request',
          entityId: id,
          before: { claimed_by: s.claimed_by, claimed_at: s.claimed_at!.toISOString() },
          after: { claimed_by: null, claimed_at: null },
        });
      });
      void announce('request_released', id);
      return answer(id);
    },

    /**
     * Inside a decision's transaction, on the locked row: while another operator's claim stands,
     * only they may complete or reject the request.
     */
    async guardDecision(trx: ShiftTrx, r: { id: number; claimed_by: number | null; claimed_at: Date | null }, caller: Caller) {
      if (r.claimed_by === null || r.claimed_by === caller.user.id || r.claimed_at! < staleBefore(d.now())) return;
      const s = await repo.claimState(trx, r.id);
      const name = who(s?.claimer_name ?? null, r.claimed_by);
      throw claimedBy({ id: r.claimed_by, name }, `Заявка в работе у ${holder(s?.claimer_name ?? null, r.claimed_by)}: выполнить или отклонить её может только этот оператор`);
    },

    /**
     * The player's cancel of a request an operator has taken into work: refused until an operator
     * releases or decides it, lapsed or not. The operator may be handing over (or have received) the
     * adena in game already, and only an operator can tell; a lapse lets operators take over from
     * each other, it does not give the hold back (a player refunded while the adena changed hands
     * in game would hold it twice). The same after its operator was blocked, demoted or had TOTP turned
     * off (releaseAllOf), until another operator decides it or takes it and releases it.
     */
    guardCancel(r: { claimed_by: number | null; claim_dropped_by: number | null }) {
      if (r.claimed_by === null && r.claim_dropped_by === null) return;
      const message =
        r.claimed_by === null
          ? 'Заявку проверяет оператор, отменить её сейчас нельзя. Дождитесь его решения'
          : 'Оператор уже выполняет эту заявку, отменить её нельзя. Дождитесь его решения';
      throw new AppError('CONFLICT', { message, errors: { id: [message] } });
    },

    /**
     * After a new request committed: its feed event, built from the opening statement's own row
     * (decision record 0027: no second query), and the VIP alert when the player is VIP (a write
     * transaction only then; the minute's scan catches a VIP alert lost here).
     */
    opened(r: OpenedRequest) {
      const vip = r.vipUntil !== null && r.vipUntil > d.now();
      try {
        d.realtime.publishOperators('request_created', toOperatorEvent({ ...r, vip, claimed_by: null, claimer_name: null }));
      } catch (err) {
        d.log.warn({ err }, 'operators feed: event not sent');
      }
      if (vip) alertVip(r.id).catch((err) => d.log.warn({ err }, 'operators alert: VIP alert not queued; the next scan queues it'));
    },

    /** After a completion, rejection or the player's cancel committed. */
    decided(id: number) {
      void announce('request_decided', id);
    },

    /** The alert jobs: one send per operator and request, and the scan every minute. */
    registerJobs() {
      d.jobs.register<AlertPayload>(ALERT_SEND_KIND, async (p, ctx) => {
        if (!d.bot.enabled) return;
        // A retry may come an hour later: by then the operator may be blocked, demoted or unlinked, and
        // the request's details are no longer theirs to read.
        if (p.userId === undefined || !(await repo.isOperatorChat(d.db, p.userId, BigInt(p.chatId), d.adminRequiresTwoFactor ?? true))) return;
        // Nor is a request already decided or cancelled news by then (a retry after Telegram's 429 or an
        // outage), or one another operator took meanwhile while their claim stands: «ждёт без оператора» and
        // «Возьмите её в работу» would be false.
        if (p.requestId !== undefined && !(await repo.awaitsOperator(d.db, p.requestId, staleBefore(d.now())))) return;
        const r = await d.bot.sendMessage(BigInt(p.chatId), p.text);
        // Telegram's 429 names when to try again; sooner would be refused again.
        if (r.retryAfterMs !== undefined) throw new RetryAfter(r.retryAfterMs, r.error);
        // A chat that blocked the bot or is gone will not take a retry either, and is unlinked from its operator.
        if (r.chatGone && p.userId !== undefined) await d.chatGone?.(p.userId, BigInt(p.chatId));
        if (r.ok) return;
        // A 5xx or a network failure: Telegram (or the way to it) is down for a while; tried again, at most 5 minutes apart.
        if (r.transient) {
          throw new RetryAfter(Math.min(ALERT_RETRY_FIRST_MS * 2 ** (ctx.attempt - 1), ALERT_RETRY_MAX_GAP_MS), r.error ?? 'telegram send failed');
        }
        // Another refusal (a revoked token, a chat gone) will not change with a retry.
        if (!r.chatGone) d.log.warn({ err: r.error }, 'operators alert: Telegram refused it');
      }, { lane: TELEGRAM_LANE });
      d.jobs.every(ALERT_SCAN_KIND, ALERT_SCAN_EVERY_MS, scan);
    },

    scan,

    async stats(q: { from?: Date; to?: Date }) {
      const to = q.to ?? d.now();
      const from = q.from ?? new Date(to.getTime() - 86_400_000);
      // With both bounds the contract's schema checks the period; with one, the other is known only here.
      if (from >= to) throw new AppError('VALIDATION', { errors: { to: [FIELD_MESSAGES.periodOrder] } });
      if (to.getTime() - from.getTime() > MAX_REPORT_DAYS * 86_400_000) {
        throw new AppError('VALIDATION', { errors: { to: [`Период не длиннее ${MAX_REPORT_DAYS} дней`] } });
      }
      const rows = (await repo.stats(d.db, from, to)).map(toStatsRow);
      return { from: from.toISOString(), to: to.toISOString(), operators: rows };
    },

    async statsCsv(q: { from?: Date; to?: Date }) {
      const s = await this.stats(q);
      return toStatsCsv(s.operators, new Date(s.from), new Date(s.to));
    },
  };
}

export type ShiftService = ReturnType<typeof createShiftService>;
