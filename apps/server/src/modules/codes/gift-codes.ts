import { adenaText } from '@adena/contract';
import { AppError } from '../../lib/app-error';
import { newSert } from '../../lib/sert';
import { MAX_SAFE_AMOUNT, toNumber } from '../../lib/money';
import { type Leg, serviceAccount, walletAccount } from '../ledger/ledger.service';
import type { User } from '../sessions/caller';
import { type CodeRow, type CodesTrx, codesRepository as repo, type GameServerRow, type Q } from './codes.repository';

/**
 * The codes module's rules that a batch of codes (user-variants) shares with a single code:
 * prices and fees, drawing a sert, cancelling and locking codes, and the legs that move a price.
 * Every call that takes a transaction runs inside the caller's.
 */

/** Open codes a user variant may hold. */
export const MAX_BATCH = 100;


export const gameServerNotFound = () =>
  new AppError('NOT_FOUND', { message: 'Игровой сервер не найден', errors: { gamesserver_id: ['Игровой сервер не найден'] } });

const STATUS_TEXT = { activated: 'Код уже активирован', cancelled: 'Код отменён владельцем', active: 'Код активен' } as const;
/** An operator's cancel (a fraud case) is not blamed on the seller. */
const CANCELLED_BY_OPERATORS = 'Код отменён администрацией сервиса';
/**
 * 409 for a code that is no longer active, under the field of the call that named it: `sert` for an
 * activation, `id` for the issuer's cancel (`POST /api/codes/{id}/cancel`, `DELETE /api/v1/codes/{id}`).
 */
export const codeNotActive = (code: Pick<CodeRow, 'status' | 'ownerId' | 'cancelledBy'>, field: 'sert' | 'id' = 'sert') => {
  const { status } = code;
  const text = status === 'cancelled' && code.cancelledBy !== null && code.cancelledBy !== code.ownerId ? CANCELLED_BY_OPERATORS : STATUS_TEXT[status];
  return new AppError('CODE_NOT_ACTIVE', { message: text, errors: { [field]: [text] }, body: { status } });
};

/**
 * The activator pressing again (a retry of an activation whose answer was lost): still 409 with the
 * status, but saying the adena is theirs already, not that someone took the code.
 */
export const codeActivatedByYou = (nominal: bigint) => {
  const message = `Вы уже активировали этот код: ${adenaText(nominal)} на вашем балансе`;
  return new AppError('CODE_NOT_ACTIVE', { message, errors: { sert: [message] }, body: { status: 'activated' } });
};

export const isVip = (u: Pick<User, 'vip_until'>, now = new Date()) => u.vip_until !== null && new Date(u.vip_until) > now;
/** The fee in basis points this user pays on this server: the VIP fee while VIP lasts. */
export const feeBpFor = (u: Pick<User, 'vip_until'>, s: Pick<GameServerRow, 'code_fee_bp' | 'vip_code_fee_bp'>, now = new Date()) =>
  isVip(u, now) ? s.vip_code_fee_bp : s.code_fee_bp;

/**
 * The fee a purchase charges, from the buyer's row as the purchase holds it (taken first in its transaction):
 * the user read when the call arrived may be older, and a VIP an operator ended while the purchase waited for the
 * row was charged the VIP fee, past the confirmed-price check too (stress review round 9).
 */
export async function heldFeeBp(q: Q, userId: number, s: Pick<GameServerRow, 'code_fee_bp' | 'vip_code_fee_bp'>, now = new Date()) {
  return feeBpFor(await repo.vipOf(q, userId), s, now);
}

export async function activeGameServer(q: Q, id: number) {
  const server = await repo.gameServer(q, id);
  if (!server?.active) throw gameServerNotFound();
  return server;
}

/** The server, hidden or not: for what only refunds (a batch made smaller), as a cancel or a batch's removal does. */
export async function anyGameServer(q: Q, id: number) {
  const server = await repo.gameServer(q, id);
  if (!server) throw gameServerNotFound();
  return server;
}

export function checkNominal(server: GameServerRow, nominal: bigint) {
  if (nominal < server.min_nominal) {
    throw new AppError('VALIDATION', { errors: { nominal: [`Номинал не меньше ${adenaText(server.min_nominal)}`] } });
  }
}

/**
 * The price of one code the caller confirmed, when given: another price now (the fee changed since
 * their page was read: an operator's setting, VIP ending) is 409 with `price`, and nothing is charged.
 */
export function checkConfirmedPrice(confirmed: number | undefined, price: bigint) {
  if (confirmed === undefined || BigInt(confirmed) === price) return;
  const message = `Цена кода изменилась: теперь ${adenaText(price)}. Проверьте и оплатите ещё раз`;
  throw new AppError('CONFLICT', { message, errors: { price: [message] }, body: { price: toNumber(price) } });
}

/** A total the wire can carry as a JSON number. */
export function checkTotal(total: bigint, field = 'nominal') {
  if (total > MAX_SAFE_AMOUNT) throw new AppError('VALIDATION', { errors: { [field]: ['Слишком большая сумма'] } });
}

export interface NewCode {
  ownerId: number;
  walletId: number;
  gameServerId: number;
  nominal: bigint;
  fee: bigint;
  userVariantId: number | null;
  /** The seller's order number (the seller API). */
  externalId?: string | null;
}

/** A new code row; a sert that happens to exist already (2^-80 per pair) just draws again. */
export async function drawCode(trx: CodesTrx, v: NewCode): Promise<CodeRow> {
  for (let i = 0; i < 5; i++) {
    const row = await repo.insertCode(trx, { ...v, sert: newSert() });
    if (row) return row;
  }
  throw new Error('could not draw a free sert');
}

export async function drawCodes(trx: CodesTrx, v: NewCode, count: bigint): Promise<CodeRow[]> {
  const codes: CodeRow[] = [];
  for (let i = 0n; i < count; i++) codes.push(await drawCode(trx, v));
  return codes;
}

/** The owner's active codes among `ids` become cancelled; the rows that changed. */
export const cancelOwnCodes = (trx: CodesTrx, ownerId: number, ids: number[]) => repo.cancelOwnCodes(trx, ownerId, ids, ownerId);

/** The owner's open codes of a user variant, locked in id order (the order every batch change uses). */
export const lockOpenCodesOfVariant = (trx: CodesTrx, ownerId: number, userVariantId: number) =>
  repo.lockOpenCodesOfVariant(trx, ownerId, userVariantId);

/** Legs that take a code's price from the wallet into escrow (nominal) and fees (fee), `n` times. */
export const issueLegs = (walletId: number, gameServerId: number, nominal: bigint, fee: bigint, n = 1n): Leg[] => [
  { account: walletAccount(walletId, gameServerId, 1), amount: -(nominal + fee) * n },
  { account: serviceAccount('escrow', gameServerId, 1), amount: nominal * n },
  { account: serviceAccount('fees', gameServerId, 1), amount: fee * n },
];

/** The reverse for cancelled codes: each gets back exactly what it paid, to the wallet that paid. */
export const refundLegs = (codes: CodeRow[]): Leg[] =>
  codes.flatMap((c) => [
    { account: walletAccount(c.walletId, c.gameServerId, 1), amount: c.price },
    { account: serviceAccount('escrow', c.gameServerId, 1), amount: -c.nominal },
    { account: serviceAccount('fees', c.gameServerId, 1), amount: -c.fee },
  ]);
