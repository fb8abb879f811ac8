import { type AdminRequest, CURRENCIES, formatAmount, type Request } from '@adena/contract';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, RequestType } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import { claimKey, type IdempotencyKey, keyReused, once, storeKey } from '../../lib/idempotency';
import { toNumber } from '../../lib/money';
import type { AuthUser, Caller } from '../../plugins/auth';
import type { Realtime } from '../../plugins/realtime';
import type { TelegramBot } from '../codes/telegram-bot';
import { deliverNotices, type PendingNotice } from '../codes/telegram-notices';
import { type CurrencyType, post, rethrowMoneyError, serviceAccount, type WalletBalance, walletAccount } from '../ledger/ledger.service';
import { type AdminRequestRow, type QueueFilters, type RequestRow, requestsRepository as repo } from './requests.repository';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const iso = (d: Date | string) => new Date(d).toISOString();

export function toRequest(r: RequestRow): Request {
  return {
    id: r.id,
    type: r.type,
    currency_type: r.currency_type,
    amount: toNumber(r.amount),
    status: r.status,
    gamesserver_id: r.gamesserver_id,
    gamesserver: r.gamesserver,
    nick: r.nick,
    cashier_nick: r.cashier_nick,
    comment: r.comment,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function toAdminRequest(r: AdminRequestRow, now = new Date()): AdminRequest {
  return {
    ...toRequest(r),
    user: {
      id: r.user_id,
      name: r.user_name,
      email: r.user_email,
      phone: r.user_phone,
      vip: r.user_vip_until !== null && new Date(r.user_vip_until) > now,
    },
    processed_by: r.processed_by,
    processed_at: r.processed_at === null ? null : iso(r.processed_at),
  };
}

const notFound = () => new AppError('NOT_FOUND', { message: 'Заявка не найдена', errors: { id: ['Заявка не найдена'] } });
const notPending = (status: string) =>
  new AppError('REQUEST_NOT_PENDING', {
    message: status === 'cancelled' ? 'Заявка уже отменена' : 'Заявка уже обработана',
    errors: { id: [status === 'cancelled' ? 'Заявка уже отменена' : 'Заявка уже обработана'] },
    body: { status },
  });

/** A row of request_open(_once): the request, its server's name, the wallet after it, a recorded notice. */
type OpenedRow = Omit<RequestRow, 'amount'> & {
  amount: bigint | string;
  balance: bigint | string;
  balance_second: bigint | string;
  notice_id: bigint | string | null;
  notice_chat_id: bigint | string | null;
  notice_text: string | null;
  /** The stored answer of an earlier call with the same Idempotency-Key. */
  replayed: boolean;
};

const balanceEvent = (w: WalletBalance) => ({ gamesserver_id: w.gamesserverId, balance: toNumber(w.balance), balance_second: toNumber(w.balanceSecond) });

export interface RequestsServiceDeps {
  db: Kysely<Database>;
  realtime: Pick<Realtime, 'publish'>;
  bot: TelegramBot;
  log: { warn(obj: unknown, msg?: string): void };
}

/**
 * Deposits and withdrawals and the operators' queue. A withdrawal holds its amount on the
 * server's payout account in the same transaction that creates it; an operator's completion pays
 * it out to cash, a rejection or the player's cancel returns it. A deposit moves nothing until an
 * operator completes it (cash to wallet). Realtime events and Telegram messages leave after COMMIT.
 */
export function createRequestsService({ db, realtime, bot, log }: RequestsServiceDeps) {
  const inFlight = new Set<Promise<void>>();

  function publish(userId: number, wallets: WalletBalance[]) {
    for (const w of wallets) realtime.publish(userId, 'balance', balanceEvent(w));
  }

  function deliver(notice: PendingNotice | null) {
    if (!notice || notice.chatId === null) return;
    const p = deliverNotices(db, bot, [notice])
      .catch((err) => log.warn({ err }, 'telegram notice failed'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  /** The 422 of an amount outside the server's limits, from the DETAIL 'min,max' request_open gives. */
  function limitError(type: RequestType, currency: CurrencyType, detail: string) {
    const [min, max] = detail.split(',').map((v) => BigInt(v)) as [bigint, bigint];
    return new AppError('LIMIT_EXCEEDED', {
      message: type === 'input' ? 'Сумма пополнения вне пределов сервера' : 'Сумма вывода вне пределов сервера',
      errors: { amount: [`От ${formatAmount(min)} до ${formatAmount(max)} ${CURRENCIES[currency].name}`] },
    });
  }

  /**
   * Opens a deposit or withdrawal in one statement, the caller's bearer checked inside it
   * (caller_id, migration 0011): request_open (migration 0010) checks the server's limits, finds
   * or creates the wallet and its nick, writes the request and, for a withdrawal, the hold and
   * the Telegram threshold notice. With an Idempotency-Key, request_open_once claims the key and
   * stores the row as its answer in the same statement; a replay answers that row again and
   * publishes and sends nothing.
   */
  async function create(caller: Caller, type: RequestType, input: { gamesserver_id: number; amount: number; currency_type: CurrencyType }, idem?: IdempotencyKey) {
    const currency = input.currency_type;
    const who = sql`caller_id(${caller.tokenHash})`;
    const args = sql`${input.gamesserver_id}, ${type}, ${currency}::smallint, ${String(input.amount)}::bigint`;
    const statement = idem
      ? sql<OpenedRow>`SELECT * FROM request_open_once(${who}, ${idem.key}, ${idem.method}, ${idem.path}, ${idem.hash}, ${args})`
      : sql<OpenedRow>`SELECT *, false AS replayed FROM request_open(${who}, ${args})`;
    const { rows } = await statement.execute(db).catch((err: { code?: string; detail?: string }) => {
      if (err?.code === 'AW422') throw limitError(type, currency, err.detail ?? '0,0');
      if (err?.code === 'AWKEY') throw keyReused();
      return rethrowMoneyError(err);
    });
    const row = rows[0]!;
    const request = toRequest({ ...row, amount: BigInt(row.amount) });
    if (!row.replayed) {
      if (type === 'output') {
        publish(row.user_id, [{ walletId: row.wallet_id, gamesserverId: row.gamesserver_id, balance: BigInt(row.balance), balanceSecond: BigInt(row.balance_second) }]);
      }
      if (row.notice_id !== null) {
        deliver({ id: BigInt(row.notice_id), chatId: row.notice_chat_id === null ? null : BigInt(row.notice_chat_id), text: row.notice_text! });
      }
    }
    return type === 'output' ? { success: { ...request, enter_currency: request.amount } } : { success: request };
  }

  return {
    async settle() {
      await Promise.all([...inFlight]);
    },

    deposit: (caller: Caller, input: { gamesserver_id: number; amount: number; currency_type: CurrencyType }, idem?: IdempotencyKey) =>
      create(caller, 'input', input, idem) as Promise<{ success: Request }>,

    withdraw: (caller: Caller, input: { gamesserver_id: number; amount: number; currency_type: CurrencyType }, idem?: IdempotencyKey) =>
      create(caller, 'output', input, idem) as Promise<{ success: Request & { enter_currency: number } }>,

    /** The player's own pending request is cancelled; a withdrawal's hold comes back to the wallet. */
    cancel: (user: AuthUser, id: number, idem?: IdempotencyKey) =>
      once(async () => {
        const out = await db.transaction().execute(async (trx) => {
          await claimKey(trx, user.id, idem);
          const r = await repo.lock(trx, id, user.id);
          if (!r) throw notFound();
          if (r.status !== 'pending') throw notPending(r.status);
          await repo.finish(trx, r.id, { status: 'cancelled', processedBy: null });
          const wallets = r.type === 'output' ? (await refund(trx, r, user.id, 'withdrawal_cancel')).wallets : [];
          const answer = { success: r.id };
          await storeKey(trx, user.id, idem, answer);
          return { answer, wallets };
        });
        publish(user.id, out.wallets);
        return out.answer;
      }),

    /** Hides a finished entry from the player's own history; the row stays for operators and the audit. */
    async hide(user: AuthUser, id: number) {
      const hidden = await repo.hide(db, user.id, id);
      if (hidden) return { success: hidden.id };
      const r = await db.selectFrom('balance_requests').select(['status']).where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
      if (!r) throw notFound();
      throw new AppError('REQUEST_NOT_PENDING', {
        message: 'Заявка ещё ждёт обработки: сначала отмените её',
        errors: { id: ['Заявка ещё ждёт обработки: сначала отмените её'] },
        body: { status: r.status },
      });
    },

    async history(user: AuthUser, q: { page: number; per_page: number; gamesserver_id?: number }) {
      const { rows, total } = await repo.history(db, user.id, { gamesserverId: q.gamesserver_id, page: q.page, perPage: q.per_page });
      // Reading the history is reading the notices of finished requests.
      await repo.clearMessages(db, user.id, q.gamesserver_id);
      return { data: rows.map(toRequest), total };
    },

    // ── operators ──

    async queue(f: QueueFilters) {
      const { rows, total } = await repo.queue(db, f);
      const now = new Date();
      return { data: rows.map((r) => toAdminRequest(r, now)), total };
    },

    /**
     * Completes a pending request: a deposit is credited, a withdrawal's hold is paid out. Like a
     * rejection, it ends with a `balance` event even when the balances did not move (a paid-out
     * withdrawal), so the player's open history shows the new status at once.
     */
    async complete(admin: AuthUser, id: number, comment?: string) {
      const out = await db.transaction().execute(async (trx) => {
        const r = await repo.lock(trx, id);
        if (!r) throw notFound();
        if (r.status !== 'pending') throw notPending(r.status);
        if (r.type === 'input') {
          const w = await trx.selectFrom('wallets').select(['balance', 'balance_second']).where('id', '=', r.wallet_id).executeTakeFirstOrThrow();
          if ((r.currency_type === 1 ? w.balance : w.balance_second) + r.amount > MAX_SAFE) {
            throw new AppError('CONFLICT', { message: 'Баланс игрока превысил бы допустимый предел', errors: { amount: ['Слишком большая сумма'] } });
          }
          await post(trx, {
            kind: 'deposit',
            refType: 'balance_request',
            refId: r.id,
            actorUserId: admin.id,
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
            actorUserId: admin.id,
            legs: [
              { account: serviceAccount('payout', r.gamesserver_id, r.currency_type), amount: -r.amount },
              { account: serviceAccount('cash', r.gamesserver_id, r.currency_type), amount: r.amount },
            ],
          });
        }
        await repo.finish(trx, r.id, { status: 'completed', processedBy: admin.id, comment: comment || null });
        const wallet = await repo.flagMessage(trx, r.wallet_id);
        const after = (await repo.adminById(trx, id))!;
        await writeAudit(trx, admin.id, 'request.complete', r.id, r, after);
        return { userId: r.user_id, wallets: [wallet], after };
      });
      publish(out.userId, out.wallets);
      return { success: toAdminRequest(out.after) };
    },

    /** Rejects a pending request with a reason the player sees; a withdrawal's hold comes back. */
    async reject(admin: AuthUser, id: number, reason: string) {
      const out = await db.transaction().execute(async (trx) => {
        const r = await repo.lock(trx, id);
        if (!r) throw notFound();
        if (r.status !== 'pending') throw notPending(r.status);
        await repo.finish(trx, r.id, { status: 'rejected', processedBy: admin.id, comment: reason });
        if (r.type === 'output') await refund(trx, r, admin.id, 'withdrawal_reject');
        const wallet = await repo.flagMessage(trx, r.wallet_id);
        const after = (await repo.adminById(trx, id))!;
        await writeAudit(trx, admin.id, 'request.reject', r.id, r, after);
        return { userId: r.user_id, wallets: [wallet], after };
      });
      publish(out.userId, out.wallets);
      return { success: toAdminRequest(out.after) };
    },
  };
}

function refund(
  trx: Transaction<Database>,
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

/** The locked row before the decision and the re-read row after it, as the audit log keeps them. */
function writeAudit(trx: Transaction<Database>, adminId: number, action: string, id: number, before: AuditedFields, after: AuditedFields) {
  const snapshot = (r: AuditedFields) => ({ status: r.status, amount: r.amount.toString(), comment: r.comment, processed_by: r.processed_by });
  return trx
    .insertInto('admin_audit_log')
    .values({
      admin_id: adminId,
      action,
      entity_type: 'balance_request',
      entity_id: String(id),
      before: JSON.stringify(snapshot(before)),
      after: JSON.stringify(snapshot(after)),
    })
    .execute();
}
