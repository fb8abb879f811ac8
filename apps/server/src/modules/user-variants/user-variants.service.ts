import { adenaText } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { claimKey, type IdempotencyKey, once, storeKey } from '../../lib/idempotency';
import { feeOf, toNumber } from '../../lib/money';
import type { Realtime } from '../../plugins/realtime';
import { balanceEvents, leftEvents, type Outgoing, sertEventOf } from '../codes/codes.mapper';
import {
  activeGameServer,
  anyGameServer,
  cancelOwnCodes,
  checkConfirmedPrice,
  checkNominal,
  checkTotal,
  drawCodes,
  heldFeeBp,
  issueLegs,
  lockOpenCodesOfVariant,
  MAX_BATCH,
  refundLegs,
} from '../codes/gift-codes';
import { post } from '../ledger/ledger.service';
import type { TelegramNotices } from '../notifications/telegram-notices.service';
import type { Caller } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import { toPricekod, toPricekodAnswer } from './user-variants.mapper';
import { type UserVariantRow, type UserVariantsDb, type UserVariantsTrx, userVariantsRepository as repo } from './user-variants.repository';
import { type UseUpCode, useUpOrCheckSession } from '../two-factor/two-factor.service';

type Q = UserVariantsDb | UserVariantsTrx;

/** The body of create and edit in the domain's words. */
export interface UserVariantInput {
  gameServerId: number;
  nominal: number;
  count: number;
  /** One code's price the caller confirmed; another one is refused rather than charged. */
  price?: number;
}

/** `field`: where the request names the variant (`id` in the path of its own calls, `pricekod_id` in show_code's body). */
const userVariantNotFound = (field = 'id') => new AppError('NOT_FOUND', { message: 'Вариант не найден', errors: { [field]: ['Вариант не найден'] } });
const tooManyCodes = (field: string) => new AppError('VALIDATION', { errors: { [field]: [`Не больше ${MAX_BATCH} кодов`] } });

export interface UserVariantsDeps {
  db: UserVariantsDb;
  realtime: Pick<Realtime, 'publish'>;
  notices: Pick<TelegramNotices, 'recordBalanceDrop' | 'deliver'>;
  /** The caller's wallet on an active server, created on first use (the wallets module's rule). */
  wallets: { ensure(q: Q, userId: number, gameServerId: number): Promise<{ id: number }> };
  clock?: () => Date;
}

/** What one step of an edit moved: the wallet's balance around it and the events for after COMMIT. */
interface Moved {
  amount: bigint;
  before: bigint | null;
  after: bigint | null;
  events: Outgoing[];
}
const nothingMoved: Moved = { amount: 0n, before: null, after: null, events: [] };

/**
 * A user's own batches of gift codes of one nominal (`pricekod` on the wire). Each change is one
 * transaction: its codes are drawn or cancelled through the codes module and their price moves
 * in one or two ledger postings; events and Telegram notices leave after COMMIT.
 */
// Long: only as the sum of its methods; each of them is well under 80 lines.
export function createUserVariantsService({ db, realtime, notices, wallets, clock = () => new Date() }: UserVariantsDeps) {
  const publish = (events: Outgoing[]) => {
    for (const e of events) realtime.publish(e.userId, e.name as never, e.data as never);
  };

  async function answerOf(q: Q, ownerId: number, gameServerId: number, id: number, feeBp: number) {
    const [v] = await repo.listWithCounts(q, ownerId, gameServerId, id);
    if (!v) throw userVariantNotFound();
    return toPricekod(v, feeBp);
  }

  /** Cancels `open` codes of the batch and refunds them (an edit's first posting). */
  async function cancelSome(trx: UserVariantsTrx, ownerId: number, variant: UserVariantRow, open: { id: number }[]): Promise<Moved> {
    if (open.length === 0) return nothingMoved;
    const cancelled = await cancelOwnCodes(trx, ownerId, open.map((c) => c.id));
    // The rows are locked by the caller, so all of them must have changed; anything else is a bug.
    if (cancelled.length !== open.length) throw new Error('user variant edit: locked codes changed under the lock');
    const refund = cancelled.reduce((s, c) => s + c.price, 0n);
    const posted = await post(trx, { kind: 'pricekod_edit_refund', refType: 'pricekod', refId: variant.id, actorUserId: ownerId, legs: refundLegs(cancelled) });
    const after = posted.wallets[0]!.balance;
    return { amount: refund, before: after - refund, after, events: [...cancelled.flatMap(leftEvents), ...balanceEvents(ownerId, posted.wallets)] };
  }

  /** Issues `count` new codes into the batch and charges them (an edit's second posting). */
  async function issueMore(trx: UserVariantsTrx, owner: Caller['user'], variant: UserVariantRow, price: { nominal: bigint; fee: bigint }, count: bigint): Promise<Moved> {
    if (count === 0n) return nothingMoved;
    const ownerId = owner.id;
    const { nominal, fee } = price;
    const codes = await drawCodes(trx, { ownerId, walletId: variant.walletId, gameServerId: variant.gameServerId, nominal, fee, userVariantId: variant.id }, count);
    const charge = (nominal + fee) * count;
    const posted = await post(trx, {
      kind: 'pricekod_edit_issue',
      refType: 'pricekod',
      refId: variant.id,
      actorUserId: ownerId,
      legs: issueLegs(variant.walletId, variant.gameServerId, nominal, fee, count),
      shortField: 'count',
    });
    const after = posted.wallets[0]!.balance;
    return { amount: charge, before: after + charge, after, events: [...codes.map(sertEventOf(owner)), ...balanceEvents(ownerId, posted.wallets)] };
  }

  return {
    /** The owner's live variants on a server, at their fee (price data's `pricekods`). */
    async listOwn(q: Q, ownerId: number, gameServerId: number, feeBp: number) {
      return (await repo.listWithCounts(q, ownerId, gameServerId)).map((v) => toPricekod(v, feeBp));
    },

    /**
     * In show_code's transaction: the variant a new code joins, which must be the owner's, live, of
     * that wallet, server and nominal. Locked, so the new code queues behind an edit or delete, and
     * the batch's limits hold as an edit checks them: at most MAX_BATCH open codes, and an open total
     * (what deleting the batch refunds in one answer) that a JSON number carries.
     */
    async lockForNewCode(trx: UserVariantsTrx, ownerId: number, id: number, code: { walletId: number; gameServerId: number; nominal: bigint; price: bigint }) {
      const variant = await repo.lockOwn(trx, ownerId, id);
      if (!variant || variant.gameServerId !== code.gameServerId) throw userVariantNotFound('pricekod_id');
      if (variant.nominal !== code.nominal) {
        throw new AppError('VALIDATION', { errors: { nominal: [`Номинал варианта — ${adenaText(variant.nominal)}`] } });
      }
      if (variant.walletId !== code.walletId) throw userVariantNotFound('pricekod_id');
      // Counted under the variant's lock: every code that joins a batch passes it, so none joins meanwhile.
      const open = await repo.openTotals(trx, ownerId, variant.id);
      if (open.count + 1 > MAX_BATCH) throw tooManyCodes('pricekod_id');
      checkTotal(open.price + code.price, 'pricekod_id');
      return variant.id;
    },

    /** `useUp`: the caller's second-factor code, used up first in the transaction (the user's row first), so a refusal leaves it. */
    create: (caller: Caller, input: UserVariantInput, idem?: IdempotencyKey, useUp?: UseUpCode) =>
      once(async () => {
        const ownerId = caller.user.id;
        const nominal = BigInt(input.nominal);
        const count = BigInt(input.count);
        const out = await db.transaction().execute(async (trx) => {
          await useUpOrCheckSession(trx, caller, useUp);
          await claimKey(trx, ownerId, idem);
          const server = await activeGameServer(trx, input.gameServerId);
          checkNominal(server, nominal);
          const feeBp = await heldFeeBp(trx, ownerId, server, clock());
          const fee = feeOf(nominal, feeBp);
          // The total first: a price past 2^53 − 1 is a 422, not a 409 whose body cannot carry it (it answered 500).
          const total = (nominal + fee) * count;
          checkTotal(total);
          checkConfirmedPrice(input.price, nominal + fee);
          const wallet = await wallets.ensure(trx, ownerId, server.id);
          const variant = await repo.insert(trx, { ownerId, walletId: wallet.id, gameServerId: server.id, nominal });
          const codes = await drawCodes(trx, { ownerId, walletId: wallet.id, gameServerId: server.id, nominal, fee, userVariantId: variant.id }, count);
          const posted = await post(trx, {
            kind: 'pricekod_create',
            refType: 'pricekod',
            refId: variant.id,
            actorUserId: ownerId,
            legs: issueLegs(wallet.id, server.id, nominal, fee, count),
            shortField: 'count',
          });
          const after = posted.wallets[0]!.balance;
          const notice = await notices.recordBalanceDrop(trx, { userId: ownerId, walletId: wallet.id, gameServerId: server.id, before: after + total, after });
          const answer = toPricekodAnswer(await answerOf(trx, ownerId, server.id, variant.id, feeBp), total, input);
          await storeKey(trx, ownerId, idem, answer);
          return { answer, notice, events: [...balanceEvents(ownerId, posted.wallets), ...codes.map(sertEventOf(caller.user))] };
        });
        publish(out.events);
        notices.deliver([out.notice]);
        return out.answer;
      }),

    /**
     * Sets the batch's open codes to `count` codes of `nominal`. Same nominal: codes are added, or
     * the newest open ones cancelled (the older ones are likelier already handed to buyers). A new
     * nominal: every open code is cancelled and `count` new ones issued. Refunds and charges are
     * two postings of one transaction, refund first, so only the difference must be on the balance;
     * `summa` is that difference, positive when charged and negative when refunded.
     */
    edit: (caller: Caller, id: number, input: UserVariantInput, idem?: IdempotencyKey, useUp?: UseUpCode) =>
      once(async () => {
        const ownerId = caller.user.id;
        const nominal = BigInt(input.nominal);
        const out = await db.transaction().execute(async (trx) => {
          await useUpOrCheckSession(trx, caller, useUp);
          await claimKey(trx, ownerId, idem);
          const variant = await repo.lockOwn(trx, ownerId, id);
          if (!variant) throw userVariantNotFound();
          if (variant.gameServerId !== input.gameServerId) {
            throw new AppError('VALIDATION', { errors: { gamesserver_id: ['Вариант относится к другому игровому серверу'] } });
          }
          const open = await lockOpenCodesOfVariant(trx, ownerId, variant.id);
          const sameNominal = nominal === variant.nominal;
          const toCancel = sameNominal ? open.slice(input.count) : open;
          const toIssue = BigInt(sameNominal ? Math.max(0, input.count - open.length) : input.count);
          // Only an edit that issues codes buys, under today's rules: a server shown, its minimum nominal, the price
          // the player confirmed. One that only makes the batch smaller refunds, as the batch's removal does, after a
          // fee change, a raised minimum or the server's hiding too (it was told to pay again, or could not shrink).
          const buys = toIssue > 0n || !sameNominal;
          const server = buys ? await activeGameServer(trx, variant.gameServerId) : await anyGameServer(trx, variant.gameServerId);
          const feeBp = await heldFeeBp(trx, ownerId, server, clock());
          const fee = feeOf(nominal, feeBp);
          if (buys) {
            checkNominal(server, nominal);
            checkTotal(nominal + fee);
            checkConfirmedPrice(input.price, nominal + fee);
          }
          // The batch's whole open total, not only what this edit adds: its removal refunds all of it in one answer.
          // The codes kept are counted at what they were paid, which a fee changed since may put above today's price.
          const kept = sameNominal ? open.slice(0, input.count) : [];
          checkTotal(kept.reduce((sum, c) => sum + c.price, 0n) + (nominal + fee) * BigInt(input.count - kept.length));
          if (input.count > MAX_BATCH) throw tooManyCodes('count');

          const refunded = await cancelSome(trx, ownerId, variant, toCancel);
          const charged = await issueMore(trx, caller.user, variant, { nominal, fee }, toIssue);
          if (!sameNominal) await repo.update(trx, ownerId, variant.id, { nominal });
          const before = refunded.before ?? charged.before;
          const after = charged.after ?? refunded.after;
          const notice =
            before !== null && after !== null
              ? await notices.recordBalanceDrop(trx, { userId: ownerId, walletId: variant.walletId, gameServerId: server.id, before, after })
              : null;
          const answer = toPricekodAnswer(await answerOf(trx, ownerId, server.id, variant.id, feeBp), charged.amount - refunded.amount, input);
          await storeKey(trx, ownerId, idem, answer);
          return { answer, notice, events: [...refunded.events, ...charged.events] };
        });
        publish(out.events);
        notices.deliver([out.notice]);
        return out.answer;
      }),

    /**
     * Cancels the batch's open codes, refunds what they cost and hides the batch. With an
     * Idempotency-Key a retry after a lost answer gets the first answer (what was refunded), not 404. The session is
     * checked again under the owner's row first, as a code's cancel is: a delete that waited for a logout or a block
     * must not void codes the owner has handed out.
     */
    remove: (caller: Caller, id: number, idem?: IdempotencyKey) =>
      once(async () => {
        const ownerId = caller.user.id;
        const out = await db.transaction().execute(async (trx) => {
          await requireLiveSession(trx, caller);
          await claimKey(trx, ownerId, idem);
          const variant = await repo.lockOwn(trx, ownerId, id);
          if (!variant) throw userVariantNotFound();
          const open = await lockOpenCodesOfVariant(trx, ownerId, variant.id);
          const cancelled = await cancelOwnCodes(trx, ownerId, open.map((c) => c.id));
          const events: Outgoing[] = [];
          let refund = 0n;
          if (cancelled.length > 0) {
            refund = cancelled.reduce((s, c) => s + c.price, 0n);
            const posted = await post(trx, { kind: 'pricekod_delete', refType: 'pricekod', refId: variant.id, actorUserId: ownerId, legs: refundLegs(cancelled) });
            events.push(...cancelled.flatMap(leftEvents), ...balanceEvents(ownerId, posted.wallets));
          }
          await repo.update(trx, ownerId, variant.id, { deleted: true });
          const answer = { success: id, summa: toNumber(refund) };
          await storeKey(trx, ownerId, idem, answer);
          return { answer, events };
        });
        publish(out.events);
        return out.answer;
      }),
  };
}

export type UserVariantsService = ReturnType<typeof createUserVariantsService>;
