import { MY_CODES_PAGE_SIZE } from '@adena/contract';
import type { ChangeFeed } from '../../db/changes';
import { readSnapshot } from '../../db/snapshot';
import { AppError } from '../../lib/app-error';
import { claimKey, type IdempotencyKey, once, storeKey } from '../../lib/idempotency';
import { feeOf, toNumber } from '../../lib/money';
import { normalizeSert } from '../../lib/sert';
import type { Realtime } from '../../plugins/realtime';
import { createRateLimiter, type RateRule } from '../sessions/rate-limit.service';
import type { IncidentsService } from '../incidents/incidents.service';
import { post, serviceAccount, type WalletBalance, walletAccount } from '../ledger/ledger.service';
import type { TelegramNotices } from '../notifications/telegram-notices.service';
import type { Caller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import type { UserVariantsService } from '../user-variants/user-variants.service';
import { noWebhooks, type WebhookOutbox } from '../webhooks/webhooks.service';
import {
  balanceEvents,
  incidentEvent,
  leftEvents,
  type Outgoing,
  sertEventOf,
  toActivationAnswer,
  toAuthPriceData,
  toCodeEvent,
  toCode,
  toIssueAnswer,
  toPriceData,
  toSellerCode,
} from './codes.mapper';
import { type CodeRow, type CodesDb, type CodesTrx, codesRepository as repo, type Q, type WalletRow } from './codes.repository';
import { type PriceDataRow, priceDataKey } from './price-data.repository';
import { createPriceDataReads } from './price-data';
import { activeGameServer, checkConfirmedPrice, checkNominal, gameServerNotFound, checkTotal, codeActivatedByYou, codeNotActive, drawCode, drawCodes, feeBpFor, heldFeeBp, issueLegs, refundLegs } from './gift-codes';
import { addressKey } from '../../lib/address-key';
import { type UseUpCode, useUpOrCheckSession } from '../two-factor/two-factor.service';

export interface CodesLimits {
  /** Activation tries of unknown codes per user, and per IP (guessing). */
  failuresPerUser: RateRule;
  failuresPerIp: RateRule;
}

export const DEFAULT_CODES_LIMITS: CodesLimits = {
  failuresPerUser: { limit: 10, windowMs: 10 * 60_000 },
  failuresPerIp: { limit: 30, windowMs: 10 * 60_000 },
};

/** show_code's body in the domain's words. */
export interface IssueInput {
  gameServerId: number;
  nominal: number;
  walletId: number;
  userVariantId?: number;
  /** The price the caller confirmed; another one is refused rather than charged. */
  price?: number;
}

/** The seller API's issue (POST /api/v1/codes) in the domain's words. */
export interface BatchInput {
  gameServerId: number;
  nominal: number;
  count: number;
  externalId?: string;
}

/** Codes on one page of the seller API's list. */
export const SELLER_PAGE = 50;

const codeNotFound = () => new AppError('NOT_FOUND', { message: 'Код не найден', errors: { id: ['Код не найден'] } });

/** How one activation try ended, decided inside its transaction and answered after it. */
type Activation =
  | { kind: 'not_found' }
  | { kind: 'closed' }
  | { kind: 'own'; code: CodeRow }
  | { kind: 'conflict'; code: CodeRow; incidentId: number | null }
  | { kind: 'activated'; code: CodeRow; wallets: WalletBalance[] };

export interface CodesServiceDeps {
  db: CodesDb;
  realtime: Pick<Realtime, 'publish'>;
  notices: Pick<TelegramNotices, 'recordBalanceDrop' | 'deliver'>;
  incidents: Pick<IncidentsService, 'openOnFailedActivation'>;
  userVariants: Pick<UserVariantsService, 'lockForNewCode'>;
  /** The caller's wallet on an active server, created on first use (the wallets module's rule). */
  wallets: { ensure(q: Q, userId: number, gameServerId: number): Promise<WalletRow> };
  /** The seller's webhook outbox: events written in the transaction of the change they report. */
  webhooks?: WebhookOutbox;
  limits?: CodesLimits;
  clock?: () => Date;
  /**
   * The change feed the session cache follows, as its `price_data_changed` channel: its connection reads a cached
   * caller's price data as their barrier, and tells which players' held codes and variants changed.
   */
  feed?: Pick<ChangeFeed, 'read' | 'subscribe'>;
}

/**
 * Gift codes: price data, issue, activation, the issuer's cancel. Each movement of value is one
 * transaction with one ledger posting; realtime events and Telegram notices leave only after
 * COMMIT.
 */
// Long: only as the sum of its methods; each of them is well under 80 lines.
export function createCodesService(deps: CodesServiceDeps) {
  const { db, realtime, notices, incidents, userVariants, wallets, feed, webhooks = noWebhooks, limits = DEFAULT_CODES_LIMITS, clock = () => new Date() } = deps;
  const limiter = createRateLimiter(db, clock);
  const priceData = createPriceDataReads({ db, feed });

  const publish = (events: Outgoing[]) => {
    for (const e of events) realtime.publish(e.userId, e.name as never, e.data as never);
  };

  /** The activation's transaction: at most one try wins the row; a loser opens an incident for the issuer. */
  async function tryActivation(trx: CodesTrx, caller: Caller, sert: string): Promise<Activation> {
    const userId = caller.user.id;
    const attempt = (codeId: number | null, result: Parameters<typeof repo.insertAttempt>[1]['result'], sertTried?: string) =>
      repo.insertAttempt(trx, { codeId, userId, ip: caller.ip, result, sertTried });
    let code = await repo.codeBySert(trx, sert);
    if (!code) {
      await attempt(null, 'not_found', sert);
      return { kind: 'not_found' };
    }
    if (code.ownerId === userId) {
      await attempt(code.id, 'own_code');
      return { kind: 'own', code };
    }
    if (code.status === 'active') {
      const server = await repo.gameServer(trx, code.gameServerId);
      if (!server?.active) {
        await attempt(code.id, 'server_closed');
        return { kind: 'closed' };
      }
      // Most activators already have a wallet there: one indexed read instead of ensure's three.
      const wallet = (await repo.walletOnServer(trx, userId, server.id)) ?? (await wallets.ensure(trx, userId, server.id));
      const won = await repo.markActivated(trx, code.id, userId, wallet.id);
      if (won) {
        const posted = await post(trx, {
          kind: 'code_activation',
          refType: 'code',
          refId: won.id,
          actorUserId: userId,
          legs: [
            { account: serviceAccount('escrow', won.gameServerId, 1), amount: -won.nominal },
            { account: walletAccount(wallet.id, won.gameServerId, 1), amount: won.nominal },
          ],
        });
        await attempt(won.id, 'activated');
        await webhooks.record(trx, won.ownerId, 'code.activated', { code: toCodeEvent(won) });
        return { kind: 'activated', code: won, wallets: posted.wallets };
      }
      // Another try won the row while this one waited for its lock: answer with what it left.
      code = (await repo.codeById(trx, code.id))!;
    }
    const codeStatus = code.status as 'activated' | 'cancelled';
    await attempt(code.id, codeStatus === 'activated' ? 'already_activated' : 'cancelled');
    // The activator pressing again is not the issuer's problem; anyone else is.
    const repeat = codeStatus === 'activated' && code.activatedBy === userId;
    const incidentId = repeat
      ? null
      : await incidents.openOnFailedActivation(trx, { codeId: code.id, ownerId: code.ownerId, gameServerId: code.gameServerId, attemptedBy: userId, ip: caller.ip, codeStatus });
    return { kind: 'conflict', code, incidentId };
  }

  /**
   * The issuer's cancel: the code leaves 'active' once and its price goes back to the wallet that paid.
   * With an Idempotency-Key a retry after a lost answer gets the first answer (`answerOf` the
   * cancelled code) instead of 409 «already cancelled». The session or API key is checked again under the owner's
   * row first: a seller's codes are sold to customers, and a key revoked while its cancel waited must not void them.
   */
  function cancelOne<A>(caller: Caller, codeId: number, answerOf: (code: CodeRow) => A, idem?: IdempotencyKey): Promise<A> {
    return once(async () => {
      const ownerId = caller.user.id;
      const out = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        await claimKey(trx, ownerId, idem);
        const [code] = await repo.cancelOwnCodes(trx, ownerId, [codeId], ownerId);
        if (!code) {
          const own = await repo.ownCode(trx, ownerId, codeId);
          if (!own) throw codeNotFound();
          // The cancel calls carry the code's `id`, not its `sert`: the refusal names that field.
          throw codeNotActive(own, 'id');
        }
        const posted = await post(trx, { kind: 'code_cancel', refType: 'code', refId: code.id, actorUserId: ownerId, legs: refundLegs([code]) });
        await webhooks.record(trx, ownerId, 'code.cancelled', { code: toCodeEvent(code) });
        const answer = answerOf(code);
        await storeKey(trx, ownerId, idem, answer);
        return { answer, events: [...balanceEvents(ownerId, posted.wallets), ...leftEvents(code)] };
      });
      publish(out.events);
      return out.answer;
    });
  }

  return {
    /** Anonymous: the server and its standard prices; nothing of any user. */
    async priceData(gameServerId: number) {
      const server = await activeGameServer(db, gameServerId);
      return toPriceData(server);
    },

    /**
     * A cached caller's price data read on the change feed's connection (`request.callerWith`): null for an
     * unknown server, undefined when the feed could not read it. Hand it to `authPriceData`.
     */
    priceDataOnFeed: (ownerId: number, gameServerId: number) => priceData.onFeed(priceDataKey(ownerId, gameServerId)),

    /**
     * The caller's view: their wallet (created on first use), their open codes and variants, at their fee.
     * `read`: what `priceDataOnFeed` answered for this caller, when it did.
     */
    async authPriceData(caller: Caller, gameServerId: number, read?: PriceDataRow | null) {
      const ownerId = caller.user.id;
      // One statement; the wallet is created (three more) only on the caller's first visit.
      const key = priceDataKey(ownerId, gameServerId);
      let data = read === undefined ? await priceData.of(key) : read;
      if (!data?.server.active) throw gameServerNotFound();
      if (!data.wallet) {
        await wallets.ensure(db, ownerId, gameServerId);
        data = await priceData.of(key);
        if (!data?.server.active) throw gameServerNotFound();
        if (!data.wallet) throw new Error('wallet vanished right after it was made');
      }
      return toAuthPriceData({ server: data.server, wallet: data.wallet, open: data.open, variants: data.variants, last: data.last, feeBp: feeBpFor(caller.user, data.server, clock()) });
    },

    /** `useUp`: the caller's second-factor code, used up first in the transaction (the user's row first), so a refusal leaves it. */
    issueCode: (caller: Caller, input: IssueInput, idem?: IdempotencyKey, useUp?: UseUpCode) =>
      once(async () => {
        const ownerId = caller.user.id;
        const nominal = BigInt(input.nominal);
        const out = await db.transaction().execute(async (trx) => {
          await useUpOrCheckSession(trx, caller, useUp);
          await claimKey(trx, ownerId, idem);
          const wallet = await repo.findWallet(trx, ownerId, input.walletId);
          if (!wallet) throw new AppError('NOT_FOUND', { message: 'Кошелёк не найден', errors: { wallet_id: ['Кошелёк не найден'] } });
          if (wallet.gameServerId !== input.gameServerId) {
            throw new AppError('VALIDATION', { errors: { wallet_id: ['Кошелёк относится к другому игровому серверу'] } });
          }
          const server = await activeGameServer(trx, wallet.gameServerId);
          checkNominal(server, nominal);
          const fee = feeOf(nominal, await heldFeeBp(trx, ownerId, server, clock()));
          const userVariantId =
            input.userVariantId === undefined
              ? null
              : await userVariants.lockForNewCode(trx, ownerId, input.userVariantId, { walletId: wallet.id, gameServerId: server.id, nominal, price: nominal + fee });
          checkTotal(nominal + fee);
          // The fee may have changed since the player's page showed the price (an operator's setting, VIP ending).
          checkConfirmedPrice(input.price, nominal + fee);
          const code = await drawCode(trx, { ownerId, walletId: wallet.id, gameServerId: server.id, nominal, fee, userVariantId });
          const posted = await post(trx, {
            kind: 'code_issue',
            refType: 'code',
            refId: code.id,
            actorUserId: ownerId,
            legs: issueLegs(wallet.id, server.id, nominal, fee),
            shortField: 'nominal',
          });
          const after = posted.wallets[0]!.balance;
          const notice = await notices.recordBalanceDrop(trx, { userId: ownerId, walletId: wallet.id, gameServerId: server.id, before: after + code.price, after });
          const answer = toIssueAnswer(code);
          await storeKey(trx, ownerId, idem, answer);
          return { answer, notice, events: [...balanceEvents(ownerId, posted.wallets), sertEventOf(caller.user)(code)] };
        });
        publish(out.events);
        notices.deliver([out.notice]);
        return out.answer;
      }),

    async activateCode(caller: Caller, sertInput: string) {
      const sert = normalizeSert(sertInput);
      if (!sert) {
        throw new AppError('VALIDATION', { errors: { sert: ['Такого кода не бывает: код выглядит как ADN-XXXX-XXXX-XXXX-XXXX'] } });
      }
      const userKey = `gift:user:${caller.user.id}`;
      const ipKey = `gift:ip:${addressKey(caller.ip)}`;
      // Counted before the lookup, so parallel guesses cannot all pass the limits; anything but an
      // unknown code (a code that exists is not a guess) is given back.
      const tries = await limiter.take([
        [userKey, limits.failuresPerUser],
        [ipKey, limits.failuresPerIp],
      ]);
      // A failure of ours (the database away, a deadlock) is no guess either.
      const outcome = await db
        .transaction()
        // The session checked under the activator's row first: a block or a password change the activation waited for (on
        // the code's or a wallet's row) has ended a thief's session, and a code must not land in it after that.
        .execute(async (trx) => {
          await requireLiveSession(trx, caller);
          return tryActivation(trx, caller, sert);
        })
        .catch(async (err: unknown) => {
          await tries.giveBack();
          throw err;
        });
      if (outcome.kind !== 'not_found') await tries.giveBack();
      switch (outcome.kind) {
        case 'not_found':
          throw new AppError('NOT_FOUND', { message: 'Код не найден', errors: { sert: ['Код не найден. Проверьте, что он введён без ошибок'] } });
        case 'closed':
          throw new AppError('NOT_FOUND', { message: 'Игровой сервер кода закрыт', errors: { sert: ['Игровой сервер этого кода сейчас закрыт'] } });
        case 'own':
          if (outcome.code.status !== 'active') throw codeNotActive(outcome.code);
          throw new AppError('VALIDATION', {
            errors: { sert: ['Это ваш код. Чтобы вернуть адену, отмените его в списке «Мои коды» — цена вернётся полностью'] },
            body: { status: outcome.code.status },
          });
        case 'conflict':
          if (outcome.incidentId !== null) publish([incidentEvent(outcome.code, outcome.incidentId)]);
          if (outcome.code.status === 'activated' && outcome.code.activatedBy === caller.user.id) throw codeActivatedByYou(outcome.code.nominal);
          throw codeNotActive(outcome.code);
        case 'activated': {
          const c = outcome.code;
          publish([...balanceEvents(caller.user.id, outcome.wallets), ...leftEvents(c)]);
          return toActivationAnswer(c);
        }
      }
    },

    /** Every code the caller issued, activated and cancelled ones included; active first (GET /api/my_codes). */
    async myCodes(caller: Caller, q: { status?: CodeRow['status']; gameServerId?: number; page: number }) {
      const { rows, total } = await readSnapshot(db, (s) => repo.ownCodesPage(s, caller.user.id, q, MY_CODES_PAGE_SIZE, (q.page - 1) * MY_CODES_PAGE_SIZE));
      return { data: rows.map(toCode), total };
    },

    cancelCode: (caller: Caller, codeId: number, idem?: IdempotencyKey) =>
      cancelOne(caller, codeId, (code) => ({ success: code.id, summa: toNumber(code.price) }), idem),

    /** The seller API's cancel: the same cancel, answered with the cancelled code. */
    cancelOwn: (caller: Caller, codeId: number, idem?: IdempotencyKey) => cancelOne(caller, codeId, toSellerCode, idem),

    /**
     * The seller API's issue: `count` codes of one nominal in one transaction and one posting, at
     * the caller's fee (the VIP fee while VIP lasts), under the call's Idempotency-Key.
     */
    issueBatch: (caller: Caller, input: BatchInput, idem: IdempotencyKey) =>
      once(async () => {
        const ownerId = caller.user.id;
        const nominal = BigInt(input.nominal);
        const count = BigInt(input.count);
        const out = await db.transaction().execute(async (trx) => {
          // The key (or session) still live under its user's row: a revoke or a block the call waited for is seen.
          await requireLiveSession(trx, caller);
          await claimKey(trx, ownerId, idem);
          const server = await activeGameServer(trx, input.gameServerId);
          checkNominal(server, nominal);
          const fee = feeOf(nominal, await heldFeeBp(trx, ownerId, server, clock()));
          const total = (nominal + fee) * count;
          checkTotal(total);
          const wallet = await wallets.ensure(trx, ownerId, server.id);
          const v = { ownerId, walletId: wallet.id, gameServerId: server.id, nominal, fee, userVariantId: null, externalId: input.externalId ?? null };
          const codes = await drawCodes(trx, v, count);
          // One posting per code, as show_code's, so each code's own ledger story is complete.
          let posted: Awaited<ReturnType<typeof post>> | undefined;
          for (const code of codes) {
            posted = await post(trx, { kind: 'code_issue', refType: 'code', refId: code.id, actorUserId: ownerId, legs: issueLegs(wallet.id, server.id, nominal, fee), shortField: 'count' });
          }
          const after = posted!.wallets[0]!.balance;
          const notice = await notices.recordBalanceDrop(trx, { userId: ownerId, walletId: wallet.id, gameServerId: server.id, before: after + total, after });
          const answer = { codes: codes.map(toSellerCode), summa: toNumber(total) };
          await storeKey(trx, ownerId, idem, answer);
          return { answer, notice, events: [...balanceEvents(ownerId, posted!.wallets), ...codes.map(sertEventOf(caller.user))] };
        });
        publish(out.events);
        notices.deliver([out.notice]);
        return out.answer;
      }),

    /**
     * The caller's codes, newest first, a page at a time; with `olderThan` (the id of the last code read)
     * only older ones, so a list walked while codes change status skips none. `total` counts every code
     * the filters match, the cursor aside.
     */
    async listOwn(caller: Caller, f: { status?: CodeRow['status']; gameServerId?: number; olderThan?: number; page: number }) {
      // The page and its total in one snapshot (readSnapshot): codes bought meanwhile must not make them disagree.
      const { rows, total } = await readSnapshot(db, (s) => repo.pageOfOwner(s, caller.user.id, { ...f, offset: (f.page - 1) * SELLER_PAGE, limit: SELLER_PAGE }));
      return { data: rows.map(toSellerCode), total };
    },

    /** One of the caller's codes; another user's is simply not found. */
    async getOwn(caller: Caller, codeId: number) {
      const code = await repo.ownCode(db, caller.user.id, codeId);
      if (!code) throw codeNotFound();
      return toSellerCode(code);
    },
  };
}

export type CodesService = ReturnType<typeof createCodesService>;
