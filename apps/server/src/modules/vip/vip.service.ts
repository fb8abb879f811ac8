import { amountText, plural } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { claimKey, type IdempotencyKey, once, storeKey } from '../../lib/idempotency';
import { MAX_SAFE_AMOUNT, toNumber } from '../../lib/money';
import type { Realtime } from '../../plugins/realtime';
import { balanceEvents, type Outgoing } from '../codes/codes.mapper';
import { post, serviceAccount, walletAccount } from '../ledger/ledger.service';
import type { Caller } from '../sessions/caller';
import { sessionStillLive } from '../sessions/live-session';
import { toVipAnswer } from './vip.mapper';
import { type VipDb, type VipServerRow, type VipTrx, type VipWalletRow, vipRepository as repo } from './vip.repository';


export interface VipPurchase {
  months: number;
  /** Whose coins pay; without it, the first server in display order whose coins cover the price. */
  gameServerId?: number;
  /** The coins and days the caller confirmed; other ones now are refused rather than charged. */
  price?: number;
  days?: number;
}

const gameServerNotFound = () =>
  new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });
const notEnoughCoins = () =>
  new AppError('INSUFFICIENT_BALANCE', {
    message: 'Недостаточно монет эйнхасад',
    body: { low_cap: true },
    errors: { months: ['Недостаточно монет эйнхасад для покупки VIP'] },
  });

/**
 * The price and period the caller confirmed, when given: others now (an operator changed the server's
 * settings since the dialog was read) are 409 with the current `price` and `days`, and nothing is charged.
 */
function checkConfirmedTerms(input: VipPurchase, price: bigint, days: number) {
  const samePrice = input.price === undefined || BigInt(input.price) === price;
  const sameDays = input.days === undefined || input.days === days;
  if (samePrice && sameDays) return;
  const message = `Условия VIP изменились: теперь ${amountText(price, 2)} за ${days} ${plural(days, ['день', 'дня', 'дней'])}. Проверьте и оплатите ещё раз`;
  throw new AppError('CONFLICT', { message, errors: { [samePrice ? 'days' : 'price']: [message] }, body: { price: toNumber(price), days } });
}

/** VIP bought with a server's second currency (coins of Einhasad), at that server's price and period. */
export function createVipService({ db, realtime, clock = () => new Date() }: { db: VipDb; realtime: Pick<Realtime, 'publish'>; clock?: () => Date }) {
  /** The server and wallet whose coins pay: the chosen one, or the first whose coins cover the price. */
  async function payer(trx: VipTrx, ownerId: number, input: VipPurchase, months: bigint): Promise<{ server?: VipServerRow; wallet?: VipWalletRow }> {
    if (input.gameServerId !== undefined) {
      const server = await repo.gameServer(trx, input.gameServerId);
      if (!server?.active) throw gameServerNotFound();
      return { server, wallet: await repo.walletOnServer(trx, ownerId, server.id) };
    }
    const wallets = new Map((await repo.walletsOfOwner(trx, ownerId)).map((w) => [w.gamesserver_id, w]));
    for (const server of await repo.activeGameServers(trx)) {
      const wallet = wallets.get(server.id);
      if (wallet && wallet.coins >= server.vip_price * months) return { server, wallet };
    }
    return {};
  }

  return {
    buy: (caller: Caller, input: VipPurchase, idem?: IdempotencyKey) =>
      once(async () => {
        const userId = caller.user.id;
        const months = BigInt(input.months);
        const out = await db.transaction().execute(async (trx) => {
          await claimKey(trx, userId, idem);
          await repo.lockBuyer(trx, userId);
          // A block, a logout or a TOTP rescue the purchase waited for on the buyer's row has ended its session.
          if (!(await sessionStillLive(trx, caller))) throw new AppError('UNAUTHENTICATED');
          const { server, wallet } = await payer(trx, userId, input, months);
          if (!server) throw notEnoughCoins();
          const total = server.vip_price * months;
          if (total > MAX_SAFE_AMOUNT) throw new AppError('VALIDATION', { errors: { months: ['Слишком большая сумма'] } });
          // Before the balance: a player short of coins at a changed price hears the new price first.
          checkConfirmedTerms(input, total, server.vip_period_days * input.months);
          if (!wallet) throw notEnoughCoins();
          const posted = await post(trx, {
            kind: 'vip_purchase',
            refType: 'user',
            refId: userId,
            actorUserId: userId,
            legs: [
              { account: walletAccount(wallet.id, server.id, 2), amount: -total },
              { account: serviceAccount('fees', server.id, 2), amount: total },
            ],
          }).catch((err: unknown) => {
            // The ledger refuses a chosen server's coins that fall short, naming its own `amount`; this
            // request's field is `months`, as when no server's coins cover the price.
            throw err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE' ? notEnoughCoins() : err;
          });
          const user = await repo.extendVip(trx, userId, server.vip_period_days * input.months);
          const answer = toVipAnswer(user, clock());
          await storeKey(trx, userId, idem, answer);
          return { answer, events: balanceEvents(userId, posted.wallets) };
        });
        const events: Outgoing[] = out.events;
        for (const e of events) realtime.publish(e.userId, e.name as never, e.data as never);
        return out.answer;
      }),
  };
}

export type VipService = ReturnType<typeof createVipService>;
