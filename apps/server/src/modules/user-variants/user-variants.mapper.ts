import type { Pricekod } from '@adena/contract';
import { feeOf, toFigure, toNumber } from '../../lib/money';
import type { UserVariantWithCounts } from './user-variants.repository';
import type { UserVariantInput } from './user-variants.service';

/**
 * A user variant on the wire (`pricekod`), priced at the caller's fee. A fee raised since the batch was
 * made (an operator's setting, VIP ending) can price one more code past 2^53 − 1: the price then stays at
 * that largest figure, since no such code can be bought (checkTotal), and the page still loads, so the
 * batch can be deleted.
 */
export function toPricekod(v: UserVariantWithCounts, feeBp: number): Pricekod {
  return {
    id: v.id,
    gamesserver_id: v.gameServerId,
    nominal: toNumber(v.nominal),
    price: toFigure(v.nominal + feeOf(v.nominal, feeBp)),
    count: Number(v.count),
    open_count: Number(v.openCount),
    created_at: new Date(v.createdAt).toISOString(),
  };
}

/** The body of create and edit (`pricekod` calls) in the domain's words. */
export const fromPricekodBody = (b: { gamesserver_id: number; nominal: number; count: number; price?: number }): UserVariantInput => ({
  gameServerId: b.gamesserver_id,
  nominal: b.nominal,
  count: b.count,
  ...(b.price !== undefined ? { price: b.price } : {}),
});

/** The answer of create and edit: the variant, and what moved (`summa`: charged positive, refunded negative). */
export const toPricekodAnswer = (pricekod: Pricekod, summa: bigint, input: UserVariantInput) => ({
  success: pricekod,
  summa: toNumber(summa),
  count: input.count,
  nominal: input.nominal,
});
