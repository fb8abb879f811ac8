import { adenaText, type AuthPriceData, type Code, type Incident, type Pricekod, type PriceData, type RealtimeEvents, type User } from '@adena/contract';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, GamesserversTable } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import { claimKey, type IdempotencyKey, once, storeKey } from '../../lib/idempotency';
import { feeOf, toNumber } from '../../lib/money';
export type { IdempotencyKey } from '../../lib/idempotency';
import { newSert, normalizeSert } from '../../lib/sert';
import { hashToken, newToken } from '../../lib/tokens';
import type { AuthUser } from '../../plugins/auth';
import type { Realtime, RealtimeEventName } from '../../plugins/realtime';
import { createRateLimiter, type RateRule } from '../sessions/rate-limit.service';
import { type Leg, post, serviceAccount, type WalletBalance, walletAccount } from '../ledger/ledger.service';
import { toUser } from '../users/user.mapper';
import { ensureWallet, findWallet } from '../wallets/wallets.repository';
import { type CodeRow, codesRepository as repo } from './codes.repository';
import type { TelegramBot } from './telegram-bot';
import { deliverNotices, type PendingNotice, recordBalanceDrop } from './telegram-notices';

type Server = Selectable<GamesserversTable>;
type Trx = Transaction<Database>;

export interface Actor {
  user: AuthUser;
  ip: string | null;
}

/** A realtime event waiting for COMMIT. */
type Outgoing = { [N in RealtimeEventName]: { userId: number; name: N; data: RealtimeEvents[N] } }[RealtimeEventName];

export interface CodesLimits {
  /** Activation tries of unknown codes per user, and per IP (guessing). */
  failuresPerUser: RateRule;
  failuresPerIp: RateRule;
}

export const DEFAULT_CODES_LIMITS: CodesLimits = {
  failuresPerUser: { limit: 10, windowMs: 10 * 60_000 },
  failuresPerIp: { limit: 30, windowMs: 10 * 60_000 },
};

const LINK_TOKEN_TTL_MS = 60 * 60_000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Open codes a variant may hold. */
const MAX_BATCH = 100;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const serverNotFound = () =>
  new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
const codeNotFound = () => new AppError('NOT_FOUND', { message: 'Код не найден', errors: { id: ['Код не найден'] } });
const pricekodNotFound = () => new AppError('NOT_FOUND', { message: 'Вариант не найден', errors: { id: ['Вариант не найден'] } });
const STATUS_TEXT = { activated: 'Код уже активирован', cancelled: 'Код отменён владельцем', active: 'Код активен' } as const;
const notActive = (status: CodeRow['status']) =>
  new AppError('CODE_NOT_ACTIVE', { message: STATUS_TEXT[status], errors: { sert: [STATUS_TEXT[status]] }, body: { status } });

export const isVip = (u: Pick<AuthUser, 'vip_until'>, now = new Date()) => u.vip_until !== null && new Date(u.vip_until) > now;
export const feeBpFor = (u: Pick<AuthUser, 'vip_until'>, s: Pick<Server, 'code_fee_bp' | 'vip_code_fee_bp'>, now = new Date()) =>
  isVip(u, now) ? s.vip_code_fee_bp : s.code_fee_bp;

export function toCode(c: CodeRow): Code {
  return {
    id: c.id,
    nominal: toNumber(c.nominal),
    price: toNumber(c.price),
    status: c.status,
    sert: c.sert,
    gamesserver_id: c.gamesserver_id,
    pricekod_id: c.pricekod_id,
    created_at: iso(c.created_at)!,
    activated_at: iso(c.activated_at),
  };
}

const balanceData = (w: WalletBalance): RealtimeEvents['balance'] => ({
  gamesserver_id: w.gamesserverId,
  balance: toNumber(w.balance),
  balance_second: toNumber(w.balanceSecond),
});

/** Legs that take a code's price from the wallet into escrow (nominal) and fees (fee). */
const issueLegs = (walletId: number, serverId: number, nominal: bigint, fee: bigint, n = 1n): Leg[] => [
  { account: walletAccount(walletId, serverId, 1), amount: -(nominal + fee) * n },
  { account: serviceAccount('escrow', serverId, 1), amount: nominal * n },
  { account: serviceAccount('fees', serverId, 1), amount: fee * n },
];
/** The reverse for cancelled codes: each gets back exactly what it paid. */
const refundLegs = (codes: CodeRow[]): Leg[] =>
  codes.flatMap((c) => [
    { account: walletAccount(c.wallet_id, c.gamesserver_id, 1), amount: c.price },
    { account: serviceAccount('escrow', c.gamesserver_id, 1), amount: -c.nominal },
    { account: serviceAccount('fees', c.gamesserver_id, 1), amount: -c.fee },
  ]);

export interface CodesServiceDeps {
  db: Kysely<Database>;
  realtime: Pick<Realtime, 'publish'>;
  bot: TelegramBot;
  log: { warn(obj: unknown, msg?: string): void };
  limits?: CodesLimits;
  now?: () => Date;
}

/**
 * Gift codes, user variants, incidents, the Telegram limit and VIP. Each movement of value is one
 * transaction with one or two ledger postings; realtime events and Telegram messages leave only
 * after COMMIT.
 */
export function createCodesService({ db, realtime, bot, log, limits = DEFAULT_CODES_LIMITS, now = () => new Date() }: CodesServiceDeps) {
  const limiter = createRateLimiter(db, now);
  const inFlight = new Set<Promise<void>>();

  function publish(events: Outgoing[]) {
    for (const e of events) realtime.publish(e.userId, e.name as never, e.data as never);
  }

  /** Telegram is slow and may be down: the player's answer never waits for it. */
  function deliver(notices: Array<PendingNotice | null>) {
    if (!notices.some((n) => n && n.chatId !== null)) return;
    const p = deliverNotices(db, bot, notices)
      .catch((err) => log.warn({ err }, 'telegram notice failed'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  async function activeServer(q: Kysely<Database> | Trx, id: number) {
    const server = await repo.server(q, id);
    if (!server?.active) throw serverNotFound();
    return server;
  }

  function checkNominal(server: Server, nominal: bigint) {
    if (nominal < server.min_nominal) {
      throw new AppError('VALIDATION', { errors: { nominal: [`Номинал не меньше ${adenaText(server.min_nominal)}`] } });
    }
  }

  function checkTotal(total: bigint, field = 'nominal') {
    if (total > MAX_SAFE) throw new AppError('VALIDATION', { errors: { [field]: ['Слишком большая сумма'] } });
  }

  /** A new code row; a sert that happens to exist already (2^-80 per pair) just draws again. */
  async function insertNewCode(trx: Trx, v: { userId: number; walletId: number; gamesserverId: number; nominal: bigint; fee: bigint; pricekodId: number | null }) {
    for (let i = 0; i < 5; i++) {
      const row = await repo.insertCode(trx, { ...v, sert: newSert() });
      if (row) return row;
    }
    throw new Error('could not draw a free sert');
  }

  const sertEvent = (c: CodeRow): Outgoing => ({
    userId: c.user_id,
    name: 'sert',
    data: { gamesserver_id: c.gamesserver_id, code_id: c.id, nominal: toNumber(c.nominal), sert: c.sert },
  });
  const leftEvents = (c: CodeRow): Outgoing[] => [
    { userId: c.user_id, name: 'code_status', data: { gamesserver_id: c.gamesserver_id, code_id: c.id, code_status: c.status } },
    { userId: c.user_id, name: 'del_sert', data: { gamesserver_id: c.gamesserver_id, del_sert: c.id } },
  ];
  const balanceEvents = (userId: number, wallets: WalletBalance[]): Outgoing[] =>
    wallets.map((w) => ({ userId, name: 'balance', data: balanceData(w) }));

  async function pricekodOut(q: Kysely<Database> | Trx, ownerId: number, serverId: number, id: number, feeBp: number): Promise<Pricekod> {
    const [p] = await repo.pricekodsWithCounts(q, ownerId, serverId, id);
    if (!p) throw pricekodNotFound();
    return toPricekod(p, feeBp);
  }

  function toPricekod(
    p: { id: number; gamesserver_id: number; nominal: bigint; created_at: Date; count: string | number | bigint; open_count: string | number | bigint },
    feeBp: number,
  ): Pricekod {
    return {
      id: p.id,
      gamesserver_id: p.gamesserver_id,
      nominal: toNumber(p.nominal),
      price: toNumber(p.nominal + feeOf(p.nominal, feeBp)),
      count: Number(p.count),
      open_count: Number(p.open_count),
      created_at: iso(p.created_at)!,
    };
  }

  function publicPart(server: Server, feeBp: number) {
    const nominals = [...server.standard_nominals].map((n) => BigInt(n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      id: server.id,
      gamesserver: { id: server.id, name: server.name },
      standard_nominals: nominals.map((n) => ({ nominal: toNumber(n), price: toNumber(n + feeOf(n, feeBp)) })),
      code_fee_bp: feeBp,
      min_nominal: toNumber(server.min_nominal),
    };
  }

  return {
    /** Lets Telegram messages already promised go out before the process exits. */
    async settle() {
      await Promise.all([...inFlight]);
    },

    // ── price data ──

    /** Anonymous: the server and its standard prices; nothing of any user. */
    async priceData(serverId: number): Promise<PriceData> {
      const server = await activeServer(db, serverId);
      return { ...publicPart(server, server.code_fee_bp), kods: [], pricekods: [], svoy_variant_kods: [] };
    },

    /** The caller's view: their wallet (created on first use), their open codes and variants, at their fee. */
    async authPriceData(actor: Actor, serverId: number): Promise<AuthPriceData> {
      const server = await activeServer(db, serverId);
      const wallet = await ensureWallet(db, actor.user.id, server.id);
      const feeBp = feeBpFor(actor.user, server, now());
      const open = await repo.openCodes(db, actor.user.id, server.id);
      const pricekods = await repo.pricekodsWithCounts(db, actor.user.id, server.id);
      const last = await repo.lastActivatedBy(db, actor.user.id, server.id);
      return {
        ...publicPart(server, feeBp),
        kods: open.filter((c) => c.pricekod_id === null).map(toCode),
        svoy_variant_kods: open.filter((c) => c.pricekod_id !== null).map(toCode),
        pricekods: pricekods.map((p) => toPricekod(p, feeBp)),
        wallet: { id: wallet.id, balance: toNumber(wallet.balance), balance_second: toNumber(wallet.balance_second) },
        nick: wallet.nick,
        save_nick: wallet.nick,
        telegram_price: wallet.telegram_price === null ? null : toNumber(wallet.telegram_price),
        user_kod: last ? { code_id: last.id, nominal: toNumber(last.nominal), status: last.status, activated_at: iso(last.activated_at) } : null,
      };
    },

    // ── issue, activate, cancel ──

    issueCode: (actor: Actor, input: { gamesserver_id: number; nominal: number; wallet_id: number; pricekod_id?: number }, idem?: IdempotencyKey) =>
      once(async () => {
      const userId = actor.user.id;
      const nominal = BigInt(input.nominal);
      const out = await db.transaction().execute(async (trx) => {
        await claimKey(trx, userId, idem);
        const wallet = await findWallet(trx, userId, input.wallet_id);
        if (!wallet) throw new AppError('NOT_FOUND', { message: 'Кошелёк не найден', errors: { wallet_id: ['Кошелёк не найден'] } });
        if (wallet.gamesserver_id !== input.gamesserver_id) {
          throw new AppError('VALIDATION', { errors: { wallet_id: ['Кошелёк относится к другому игровому серверу'] } });
        }
        const server = await activeServer(trx, wallet.gamesserver_id);
        checkNominal(server, nominal);
        let pricekodId: number | null = null;
        if (input.pricekod_id !== undefined) {
          // Locked: a code added to a batch queues behind an edit or delete of that batch.
          const pk = await repo.lockOwnPricekod(trx, userId, input.pricekod_id);
          if (!pk || pk.gamesserver_id !== server.id) throw pricekodNotFound();
          if (pk.nominal !== nominal) {
            throw new AppError('VALIDATION', { errors: { nominal: [`Номинал варианта — ${adenaText(pk.nominal)}`] } });
          }
          if (pk.wallet_id !== wallet.id) throw pricekodNotFound();
          pricekodId = pk.id;
        }
        const fee = feeOf(nominal, feeBpFor(actor.user, server, now()));
        checkTotal(nominal + fee);
        const code = await insertNewCode(trx, { userId, walletId: wallet.id, gamesserverId: server.id, nominal, fee, pricekodId });
        const posted = await post(trx, {
          kind: 'code_issue',
          refType: 'code',
          refId: code.id,
          actorUserId: userId,
          legs: issueLegs(wallet.id, server.id, nominal, fee),
        });
        const after = posted.wallets[0]!.balance;
        const notice = await recordBalanceDrop(trx, { userId, walletId: wallet.id, gamesserverId: server.id, before: after + code.price, after });
        const answer = { success: true as const, summa: toNumber(code.price), sert: code.sert, status: code.status, code_id: code.id };
        await storeKey(trx, userId, idem, answer);
        return { answer, notice, events: [...balanceEvents(userId, posted.wallets), sertEvent(code)] };
      });
      publish(out.events);
      deliver([out.notice]);
      return out.answer;
    }),

    async activateCode(actor: Actor, sertInput: string) {
      const userId = actor.user.id;
      const sert = normalizeSert(sertInput);
      if (!sert) {
        throw new AppError('VALIDATION', { errors: { sert: ['Такого кода не бывает: код выглядит как ADN-XXXX-XXXX-XXXX-XXXX'] } });
      }
      const userKey = `code:user:${userId}`;
      const ipKey = `code:ip:${actor.ip ?? 'unknown'}`;
      await limiter.check(userKey, limits.failuresPerUser);
      await limiter.check(ipKey, limits.failuresPerIp);

      const outcome = await db.transaction().execute(async (trx) => {
        const attempt = (codeId: number | null, result: Parameters<typeof repo.insertAttempt>[1]['result'], sertTried?: string) =>
          repo.insertAttempt(trx, { codeId, userId, ip: actor.ip, result, sertTried });
        let code = await repo.codeBySert(trx, sert);
        if (!code) {
          await attempt(null, 'not_found', sert);
          return { kind: 'not_found' as const };
        }
        if (code.user_id === userId) {
          await attempt(code.id, 'own_code');
          return { kind: 'own' as const, code };
        }
        if (code.status === 'active') {
          const server = await repo.server(trx, code.gamesserver_id);
          if (!server?.active) {
            await attempt(code.id, 'server_closed');
            return { kind: 'closed' as const };
          }
          // Most activators already have a wallet there: one indexed read instead of ensureWallet's three.
          const wallet = (await repo.walletOnServer(trx, userId, server.id)) ?? (await ensureWallet(trx, userId, server.id));
          const won = await repo.markActivated(trx, code.id, userId, wallet.id);
          if (won) {
            const posted = await post(trx, {
              kind: 'code_activation',
              refType: 'code',
              refId: won.id,
              actorUserId: userId,
              legs: [
                { account: serviceAccount('escrow', won.gamesserver_id, 1), amount: -won.nominal },
                { account: walletAccount(wallet.id, won.gamesserver_id, 1), amount: won.nominal },
              ],
            });
            await attempt(won.id, 'activated');
            return { kind: 'activated' as const, code: won, wallets: posted.wallets };
          }
          // Another try won the row while this one waited for its lock: answer with what it left.
          code = (await repo.codeById(trx, code.id))!;
        }
        const status = code.status as 'activated' | 'cancelled';
        await attempt(code.id, status === 'activated' ? 'already_activated' : 'cancelled');
        // The activator pressing again is not the issuer's problem; anyone else is.
        const repeat = status === 'activated' && code.activated_by === userId;
        const incident = repeat
          ? undefined
          : await repo.openIncident(trx, { codeId: code.id, ownerId: code.user_id, gamesserverId: code.gamesserver_id, attemptedBy: userId, ip: actor.ip, status });
        return { kind: 'conflict' as const, code, incidentId: incident?.id ?? null };
      });

      switch (outcome.kind) {
        case 'not_found':
          await limiter.record(userKey, limits.failuresPerUser);
          await limiter.record(ipKey, limits.failuresPerIp);
          throw new AppError('NOT_FOUND', { message: 'Код не найден', errors: { sert: ['Код не найден. Проверьте, что он введён без ошибок'] } });
        case 'closed':
          throw new AppError('NOT_FOUND', { message: 'Игровой сервер кода закрыт', errors: { sert: ['Игровой сервер этого кода сейчас закрыт'] } });
        case 'own':
          if (outcome.code.status !== 'active') throw notActive(outcome.code.status);
          throw new AppError('VALIDATION', {
            errors: { sert: ['Это ваш код. Чтобы вернуть адену, отмените его в списке «Мои коды» — цена вернётся полностью'] },
            body: { status: outcome.code.status },
          });
        case 'conflict': {
          const c = outcome.code;
          if (outcome.incidentId !== null) {
            publish([{ userId: c.user_id, name: 'error_code', data: { gamesserver_id: c.gamesserver_id, code_id: c.id, your_error_code_id: outcome.incidentId } }]);
          }
          throw notActive(c.status);
        }
        case 'activated': {
          const c = outcome.code;
          publish([...balanceEvents(userId, outcome.wallets), ...leftEvents(c)]);
          return { success: { code_id: c.id, nominal: toNumber(c.nominal), gamesserver_id: c.gamesserver_id, status: c.status } };
        }
      }
    },

    async cancelCode(actor: Actor, codeId: number) {
      const userId = actor.user.id;
      const out = await db.transaction().execute(async (trx) => {
        const [code] = await repo.cancelOwnCodes(trx, userId, [codeId], userId);
        if (!code) {
          const own = await repo.ownCode(trx, userId, codeId);
          if (!own) throw codeNotFound();
          throw notActive(own.status);
        }
        const posted = await post(trx, { kind: 'code_cancel', refType: 'code', refId: code.id, actorUserId: userId, legs: refundLegs([code]) });
        return { code, events: [...balanceEvents(userId, posted.wallets), ...leftEvents(code)] };
      });
      publish(out.events);
      return { success: out.code.id, summa: toNumber(out.code.price) };
    },

    // ── user variants ──

    createPricekod: (actor: Actor, input: { gamesserver_id: number; nominal: number; count: number }, idem?: IdempotencyKey) =>
      once(async () => {
      const userId = actor.user.id;
      const nominal = BigInt(input.nominal);
      const count = BigInt(input.count);
      const out = await db.transaction().execute(async (trx) => {
        await claimKey(trx, userId, idem);
        const server = await activeServer(trx, input.gamesserver_id);
        checkNominal(server, nominal);
        const feeBp = feeBpFor(actor.user, server, now());
        const fee = feeOf(nominal, feeBp);
        const total = (nominal + fee) * count;
        checkTotal(total);
        const wallet = await ensureWallet(trx, userId, server.id);
        const pk = await repo.insertPricekod(trx, { userId, walletId: wallet.id, gamesserverId: server.id, nominal });
        const codes: CodeRow[] = [];
        for (let i = 0n; i < count; i++) {
          codes.push(await insertNewCode(trx, { userId, walletId: wallet.id, gamesserverId: server.id, nominal, fee, pricekodId: pk.id }));
        }
        const posted = await post(trx, {
          kind: 'pricekod_create',
          refType: 'pricekod',
          refId: pk.id,
          actorUserId: userId,
          legs: issueLegs(wallet.id, server.id, nominal, fee, count),
        });
        const after = posted.wallets[0]!.balance;
        const notice = await recordBalanceDrop(trx, { userId, walletId: wallet.id, gamesserverId: server.id, before: after + total, after });
        const pricekod = await pricekodOut(trx, userId, server.id, pk.id, feeBp);
        const answer = { success: pricekod, summa: toNumber(total), count: input.count, nominal: input.nominal };
        await storeKey(trx, userId, idem, answer);
        return { answer, notice, events: [...balanceEvents(userId, posted.wallets), ...codes.map(sertEvent)] };
      });
      publish(out.events);
      deliver([out.notice]);
      return out.answer;
    }),

    /**
     * Sets the batch's open codes to `count` codes of `nominal`. Same nominal: codes are added, or
     * the newest open ones cancelled (the older ones are likelier already handed to buyers). A new
     * nominal: every open code is cancelled and `count` new ones issued. Refunds and charges are
     * two postings of one transaction, refund first, so only the difference must be on the balance;
     * `summa` is that difference, positive when charged and negative when refunded.
     */
    updatePricekod: (actor: Actor, id: number, input: { gamesserver_id: number; nominal: number; count: number }, idem?: IdempotencyKey) =>
      once(async () => {
      const userId = actor.user.id;
      const nominal = BigInt(input.nominal);
      const out = await db.transaction().execute(async (trx) => {
        await claimKey(trx, userId, idem);
        const pk = await repo.lockOwnPricekod(trx, userId, id);
        if (!pk) throw pricekodNotFound();
        if (pk.gamesserver_id !== input.gamesserver_id) {
          throw new AppError('VALIDATION', { errors: { gamesserver_id: ['Вариант относится к другому игровому серверу'] } });
        }
        const server = await activeServer(trx, pk.gamesserver_id);
        checkNominal(server, nominal);
        const feeBp = feeBpFor(actor.user, server, now());
        const fee = feeOf(nominal, feeBp);
        const open = await repo.lockOpenCodesOfPricekod(trx, userId, pk.id);
        const sameNominal = nominal === pk.nominal;
        const toCancel = sameNominal ? open.slice(input.count) : open;
        const toIssue = BigInt(sameNominal ? Math.max(0, input.count - open.length) : input.count);
        checkTotal((nominal + fee) * toIssue);
        if (input.count > MAX_BATCH) throw new AppError('VALIDATION', { errors: { count: [`Не больше ${MAX_BATCH} кодов`] } });

        const events: Outgoing[] = [];
        let refund = 0n;
        let before: bigint | null = null;
        let after: bigint | null = null;
        if (toCancel.length > 0) {
          const cancelled = await repo.cancelOwnCodes(trx, userId, toCancel.map((c) => c.id), userId);
          // The rows are locked above, so all of them must have changed; anything else is a bug.
          if (cancelled.length !== toCancel.length) throw new Error('pricekod edit: locked codes changed under the lock');
          refund = cancelled.reduce((s, c) => s + c.price, 0n);
          const posted = await post(trx, { kind: 'pricekod_edit_refund', refType: 'pricekod', refId: pk.id, actorUserId: userId, legs: refundLegs(cancelled) });
          before = posted.wallets[0]!.balance - refund;
          after = posted.wallets[0]!.balance;
          for (const c of cancelled) events.push(...leftEvents(c));
          events.push(...balanceEvents(userId, posted.wallets));
        }
        let charge = 0n;
        if (toIssue > 0n) {
          const codes: CodeRow[] = [];
          for (let i = 0n; i < toIssue; i++) {
            codes.push(await insertNewCode(trx, { userId, walletId: pk.wallet_id, gamesserverId: server.id, nominal, fee, pricekodId: pk.id }));
          }
          charge = (nominal + fee) * toIssue;
          const posted = await post(trx, {
            kind: 'pricekod_edit_issue',
            refType: 'pricekod',
            refId: pk.id,
            actorUserId: userId,
            legs: issueLegs(pk.wallet_id, server.id, nominal, fee, toIssue),
          });
          before ??= posted.wallets[0]!.balance + charge;
          after = posted.wallets[0]!.balance;
          events.push(...codes.map(sertEvent), ...balanceEvents(userId, posted.wallets));
        }
        if (!sameNominal) await repo.updatePricekod(trx, userId, pk.id, { nominal });
        const notice =
          before !== null && after !== null
            ? await recordBalanceDrop(trx, { userId, walletId: pk.wallet_id, gamesserverId: server.id, before, after })
            : null;
        const pricekod = await pricekodOut(trx, userId, server.id, pk.id, feeBp);
        const answer = { success: pricekod, summa: toNumber(charge - refund), count: input.count, nominal: input.nominal };
        await storeKey(trx, userId, idem, answer);
        return { answer, notice, events };
      });
      publish(out.events);
      deliver([out.notice]);
      return out.answer;
    }),

    /** Cancels the batch's open codes, refunds what they cost and hides the batch. */
    async deletePricekod(actor: Actor, id: number) {
      const userId = actor.user.id;
      const out = await db.transaction().execute(async (trx) => {
        const pk = await repo.lockOwnPricekod(trx, userId, id);
        if (!pk) throw pricekodNotFound();
        const open = await repo.lockOpenCodesOfPricekod(trx, userId, pk.id);
        const cancelled = await repo.cancelOwnCodes(trx, userId, open.map((c) => c.id), userId);
        const events: Outgoing[] = [];
        let refund = 0n;
        if (cancelled.length > 0) {
          refund = cancelled.reduce((s, c) => s + c.price, 0n);
          const posted = await post(trx, { kind: 'pricekod_delete', refType: 'pricekod', refId: pk.id, actorUserId: userId, legs: refundLegs(cancelled) });
          for (const c of cancelled) events.push(...leftEvents(c));
          events.push(...balanceEvents(userId, posted.wallets));
        }
        await repo.updatePricekod(trx, userId, pk.id, { deleted: true });
        return { refund, events };
      });
      publish(out.events);
      return { success: id, summa: toNumber(out.refund) };
    },

    // ── incidents ──

    async incidents(actor: Actor): Promise<Incident[]> {
      const rows = await repo.incidentsOf(db, actor.user.id);
      return rows.map((r) => ({
        id: r.id,
        code_id: r.code_id,
        gamesserver_id: r.gamesserver_id,
        gamesserver: r.gamesserver,
        nominal: toNumber(r.nominal),
        // The issuer's own code: they may read its sert.
        sert: r.sert,
        code_status: r.code_status,
        acknowledged_at: iso(r.acknowledged_at),
        created_at: iso(r.created_at)!,
      }));
    },

    async ackIncident(actor: Actor, id: number) {
      const row = await repo.ackIncident(db, actor.user.id, id);
      if (!row) throw new AppError('NOT_FOUND', { message: 'Обращение не найдено' });
      return { success: row.id };
    },

    async errorCodesCount(actor: Actor) {
      return { error_codes_count: await repo.openIncidentCount(db, actor.user.id) };
    },

    // ── Telegram ──

    async setTelegramLimit(actor: Actor, serverId: number, value: number) {
      await activeServer(db, serverId);
      await ensureWallet(db, actor.user.id, serverId);
      await repo.setTelegramPrice(db, actor.user.id, serverId, BigInt(value));
      return { success: value };
    },

    async clearTelegramLimit(actor: Actor, serverId: number) {
      await repo.setTelegramPrice(db, actor.user.id, serverId, null);
      return { success: null };
    },

    async telegramLink(actor: Actor) {
      const user = await repo.user(db, actor.user.id);
      const linked = user?.telegram_chat_id != null;
      if (!bot.enabled) return { url: null, linked };
      const token = newToken();
      await repo.insertLinkToken(db, actor.user.id, hashToken(token), new Date(now().getTime() + LINK_TOKEN_TTL_MS));
      return { url: bot.linkUrl(token), linked };
    },

    /** An Update from the bot's webhook: `/start <token>` links the chat, `/stop` unlinks it. */
    async telegramUpdate(update: TelegramUpdate) {
      const message = update.message;
      const text = message?.text?.trim();
      if (!message || !text || message.chat.type !== 'private') return;
      const chatId = BigInt(message.chat.id);
      const start = /^\/start(?:@\w+)?(?:\s+(\S+))?$/.exec(text);
      let reply: string | null = null;
      if (start) {
        const token = start[1];
        const owner = token ? await repo.consumeLinkToken(db, hashToken(token)) : undefined;
        if (owner) {
          await repo.setTelegramChat(db, owner.user_id, chatId);
          reply = 'Готово: уведомления о балансе будут приходить сюда. Отключить — команда /stop.';
        } else {
          reply = 'Ссылка устарела или уже использована. Откройте «Подписаться на Telegram» в кошельке ещё раз.';
        }
      } else if (/^\/stop(?:@\w+)?$/.test(text)) {
        const users = await repo.unlinkChat(db, chatId);
        reply = users.length ? 'Уведомления отключены.' : 'Этот чат не был подписан.';
      }
      if (reply && bot.enabled) {
        const r = await bot.sendMessage(chatId, reply);
        if (!r.ok) log.warn({ error: r.error }, 'telegram reply failed');
      }
    },

    // ── VIP ──

    /**
     * Buys months of VIP with coins from one server's wallet (the given one, or the first in display
     * order whose coins cover that server's price), at that server's price and period.
     */
    buyVip: (actor: Actor, input: { months: number; gamesserver_id?: number }, idem?: IdempotencyKey): Promise<{ success: User }> =>
      once(async () => {
      const userId = actor.user.id;
      const months = BigInt(input.months);
      const out = await db.transaction().execute(async (trx) => {
        await claimKey(trx, userId, idem);
        let server: Server | undefined;
        let wallet: Awaited<ReturnType<typeof repo.walletOnServer>>;
        if (input.gamesserver_id !== undefined) {
          server = await activeServer(trx, input.gamesserver_id);
          wallet = await repo.walletOnServer(trx, userId, server.id);
        } else {
          for (const s of await repo.activeServers(trx)) {
            const w = await repo.walletOnServer(trx, userId, s.id);
            if (w && w.balance_second >= s.vip_price * months) {
              server = s;
              wallet = w;
              break;
            }
          }
        }
        if (!server || !wallet) {
          throw new AppError('INSUFFICIENT_BALANCE', {
            message: 'Недостаточно монет Эйнхасад',
            body: { low_cap: true },
            errors: { months: ['Недостаточно монет Эйнхасад для покупки VIP'] },
          });
        }
        const total = server.vip_price * months;
        checkTotal(total, 'months');
        const posted = await post(trx, {
          kind: 'vip_purchase',
          refType: 'user',
          refId: userId,
          actorUserId: userId,
          legs: [
            { account: walletAccount(wallet.id, server.id, 2), amount: -total },
            { account: serviceAccount('fees', server.id, 2), amount: total },
          ],
        });
        const user = await repo.extendVip(trx, userId, server.vip_period_days * input.months);
        const answer = { success: toUser(user as AuthUser, now()) };
        await storeKey(trx, userId, idem, answer);
        return { answer, events: balanceEvents(userId, posted.wallets) };
      });
      publish(out.events);
      return out.answer;
    }),
  };
}

export interface TelegramUpdate {
  update_id: number;
  message?: { chat: { id: number; type: string }; text?: string };
}

export type CodesService = ReturnType<typeof createCodesService>;
