import type { AdminCode, AdminLedgerEntry, AuthPriceData, Code, PriceData, RealtimeEvents, SellerCode } from '@adena/contract';
import { feeOf, MAX_SAFE_AMOUNT, toNumber } from '../../lib/money';
import { maskSert } from '../../lib/sert';
import type { RealtimeEventName } from '../../plugins/realtime';
import { toAdminPerson as person } from '../incidents/incidents.mapper';
import type { WalletBalance } from '../ledger/ledger.service';
import type { IssueInput } from './codes.service';
import { toPricekod } from '../user-variants/user-variants.mapper';
import type { AttemptRow, CodeRow, GameServerRow, LedgerEntryRow, OwnerCodeRow } from './codes.repository';
import type { PriceDataRow } from './price-data.repository';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** A realtime event waiting for COMMIT. */
export type Outgoing = { [N in RealtimeEventName]: { userId: number; name: N; data: RealtimeEvents[N] } }[RealtimeEventName];

/** show_code's body in the domain's words. */
export const fromShowCodeBody = (b: { gamesserver_id: number; nominal: number; wallet_id: number; pricekod_id?: number; price?: number }): IssueInput => ({
  gameServerId: b.gamesserver_id,
  nominal: b.nominal,
  walletId: b.wallet_id,
  ...(b.pricekod_id !== undefined ? { userVariantId: b.pricekod_id } : {}),
  ...(b.price !== undefined ? { price: b.price } : {}),
});

/** What a code on the wire is made of. */
type WireCode = Pick<CodeRow, 'id' | 'nominal' | 'price' | 'status' | 'sert' | 'gameServerId' | 'userVariantId' | 'createdAt' | 'activatedAt'>;

export function toCode(c: WireCode): Code {
  return {
    id: c.id,
    nominal: toNumber(c.nominal),
    price: toNumber(c.price),
    status: c.status,
    sert: c.sert,
    gamesserver_id: c.gameServerId,
    pricekod_id: c.userVariantId,
    created_at: iso(c.createdAt)!,
    activated_at: iso(c.activatedAt),
  };
}

/** A code as the seller API shows it (PRODUCT.md section 10). */
export const toSellerCode = (c: CodeRow): SellerCode => ({ ...toCode(c), external_id: c.externalId });

/** A code in a webhook event's `data`: no sert, which travels only in answers to its issuer. */
export const toCodeEvent = (c: CodeRow) => {
  const { sert: _sert, ...rest } = toSellerCode(c);
  return { ...rest, cancelled_at: iso(c.cancelledAt) };
};

/** The server and its standard nominals at the given fee: the part of price data anyone may see. */
function toPublicPriceData(server: Pick<GameServerRow, 'id' | 'name' | 'standard_nominals' | 'min_nominal'>, feeBp: number) {
  const nominals = [...server.standard_nominals].map((n) => BigInt(n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // A nominal whose price no JSON number carries (stored before the operators' form refused it) is
  // left out rather than failing the page for every player of the server; no code of it could be bought anyway.
  const priced = nominals.map((n) => ({ n, price: n + feeOf(n, feeBp) })).filter((p) => p.price <= MAX_SAFE_AMOUNT);
  return {
    id: server.id,
    gamesserver: { id: server.id, name: server.name },
    standard_nominals: priced.map((p) => ({ nominal: toNumber(p.n), price: toNumber(p.price) })),
    code_fee_bp: feeBp,
    min_nominal: toNumber(server.min_nominal),
  };
}

/**
 * toPublicPriceData of a server row the price data holds (price-data.ts), made once per fee: that row is the same
 * object for every read until it is dropped. Nothing writes into the answers, which share its arrays.
 */
const publicParts = new WeakMap<object, Map<number, ReturnType<typeof toPublicPriceData>>>();
function publicPartOf(server: PriceDataRow['server'], feeBp: number) {
  let byFee = publicParts.get(server);
  if (!byFee) {
    byFee = new Map();
    publicParts.set(server, byFee);
  }
  let pub = byFee.get(feeBp);
  if (!pub) {
    pub = toPublicPriceData(server, feeBp);
    byFee.set(feeBp, pub);
  }
  return pub;
}

/** The last code a user activated on a server, as price data's `user_kod`. */
const toUserKod = (serverId: number, last: { id: number; nominal: bigint; status: CodeRow['status']; activatedAt: Date | null } | undefined) =>
  last
    ? { id: last.id, gamesserver_id: serverId, code_id: last.id, nominal: toNumber(last.nominal), status: last.status, activated_at: iso(last.activatedAt) }
    : null;

/** Anonymous price data: the standard prices at the standard fee, nothing of any user. */
export const toPriceData = (server: GameServerRow): PriceData => ({
  ...toPublicPriceData(server, server.code_fee_bp),
  kods: [],
  pricekods: [],
  svoy_variant_kods: [],
});

/** The caller's price data: their wallet, open codes (single and of their variants) and variants, at their fee. */
export function toAuthPriceData(v: {
  server: PriceDataRow['server'];
  feeBp: number;
  wallet: NonNullable<PriceDataRow['wallet']>;
  open?: WireCode[];
  variants?: PriceDataRow['variants'];
  last: Parameters<typeof toUserKod>[1];
}): AuthPriceData {
  const { wallet, open = [], variants = [] } = v;
  const pub = publicPartOf(v.server, v.feeBp);
  // Written out, not `{ ...pub, kods, … }`: an object spread followed by more properties leaves V8's fast path
  // (Node 20), and cost about 15 µs a call here, a tenth of the server's whole work on this request.
  return {
    id: pub.id,
    gamesserver: pub.gamesserver,
    standard_nominals: pub.standard_nominals,
    code_fee_bp: pub.code_fee_bp,
    min_nominal: pub.min_nominal,
    kods: open.filter((c) => c.userVariantId === null).map(toCode),
    svoy_variant_kods: open.filter((c) => c.userVariantId !== null).map(toCode),
    pricekods: variants.map((p) => toPricekod(p, v.feeBp)),
    wallet: { id: wallet.id, balance: toNumber(wallet.balance), balance_second: toNumber(wallet.balance_second) },
    nick: wallet.nick,
    save_nick: wallet.nick,
    telegram_price: wallet.telegram_price === null ? null : toNumber(wallet.telegram_price),
    user_kod: toUserKod(v.server.id, v.last),
  };
}

export const toIssueAnswer = (code: CodeRow) => ({
  success: true as const,
  summa: toNumber(code.price),
  sert: code.sert,
  status: code.status,
  code_id: code.id,
});

export const toActivationAnswer = (c: CodeRow) => ({
  success: { code_id: c.id, nominal: toNumber(c.nominal), gamesserver_id: c.gameServerId, status: c.status },
});

// ── realtime events ──

export const balanceEventData = (w: WalletBalance): RealtimeEvents['balance'] => ({
  gamesserver_id: w.gamesserverId,
  balance: toNumber(w.balance),
  balance_second: toNumber(w.balanceSecond),
});
export const balanceEvents = (userId: number, wallets: WalletBalance[]): Outgoing[] =>
  wallets.map((w) => ({ userId, name: 'balance', data: balanceEventData(w) }));

/**
 * The issuer sees a new code. An issuer with TOTP on gets it masked: every socket of the user hears
 * the event, a stolen session's too, while the issuing call's answer (which needed the code) has it whole.
 */
export const sertEventOf =
  (owner: { totp_secret: string | null }) =>
  (c: CodeRow): Outgoing => ({
    userId: c.ownerId,
    name: 'sert',
    data: owner.totp_secret
      ? { gamesserver_id: c.gameServerId, code_id: c.id, nominal: toNumber(c.nominal), sert: maskSert(c.sert), sert_masked: true }
      : { gamesserver_id: c.gameServerId, code_id: c.id, nominal: toNumber(c.nominal), sert: c.sert },
  });

/** Price data whose open codes show their first and last groups only, until the session steps up. */
export function withMaskedCodes(data: AuthPriceData): AuthPriceData {
  const mask = (c: Code): Code => ({ ...c, sert: maskSert(c.sert), sert_masked: true });
  return { ...data, kods: data.kods.map(mask), svoy_variant_kods: data.svoy_variant_kods.map(mask) };
}

/** The issuer's code left the open list: its new status, and its removal. */
export const leftEvents = (c: CodeRow): Outgoing[] => [
  { userId: c.ownerId, name: 'code_status', data: { gamesserver_id: c.gameServerId, code_id: c.id, code_status: c.status } },
  { userId: c.ownerId, name: 'del_sert', data: { gamesserver_id: c.gameServerId, del_sert: c.id } },
];

export const incidentEvent = (c: CodeRow, incidentId: number): Outgoing => ({
  userId: c.ownerId,
  name: 'error_code',
  data: { gamesserver_id: c.gameServerId, code_id: c.id, your_error_code_id: incidentId },
});

// ── the operators' view ──

type Person = { id: number; name: string | null; email: string | null };

/** `sert` is masked unless the operator looked the code up by that very sert. */
export function toAdminCode(code: CodeRow, ctx: { serverName: string; issuer: Person; activator: Person | undefined; reveal: boolean }): AdminCode {
  return {
    id: code.id,
    sert: ctx.reveal ? code.sert : maskSert(code.sert),
    sert_masked: !ctx.reveal,
    status: code.status,
    gamesserver_id: code.gameServerId,
    gamesserver: ctx.serverName,
    nominal: toNumber(code.nominal),
    fee: toNumber(code.fee),
    price: toNumber(code.price),
    pricekod_id: code.userVariantId,
    issuer: person(ctx.issuer.id, ctx.issuer.name, ctx.issuer.email),
    activated_by: ctx.activator ? person(ctx.activator.id, ctx.activator.name, ctx.activator.email) : null,
    cancelled_by: code.cancelledBy,
    created_at: iso(code.createdAt)!,
    activated_at: iso(code.activatedAt),
    cancelled_at: iso(code.cancelledAt),
  };
}

export const toAdminAttempt = (a: AttemptRow) => ({
  id: toNumber(BigInt(a.id)),
  user: person(a.userId, a.name, a.email),
  ip: a.ip,
  result: a.result,
  created_at: iso(a.createdAt)!,
});

export const toAdminLedgerEntry = (r: LedgerEntryRow): AdminLedgerEntry => ({
  id: toNumber(BigInt(r.id)),
  transaction_id: toNumber(BigInt(r.transaction_id)),
  transaction_kind: r.kind,
  ref_type: r.ref_type,
  ref_id: r.ref_id === null ? null : toNumber(BigInt(r.ref_id)),
  actor_user_id: r.actor_user_id,
  account_id: r.account_id,
  account_key: r.key,
  gamesserver_id: r.gamesserver_id,
  currency_type: Number(r.currency_type) as 1 | 2,
  amount: toNumber(BigInt(r.amount)),
  balance_after: r.balance_after === null ? null : toNumber(BigInt(r.balance_after)),
  created_at: iso(r.created_at)!,
});

/** A code on the operators' user card. */
export const toAdminUserCode = (c: OwnerCodeRow) => ({
  id: c.id,
  gamesserver_id: c.gamesserver_id,
  nominal: toNumber(c.nominal),
  price: toNumber(c.price),
  status: c.status,
  created_at: c.created_at.toISOString(),
  activated_at: c.activated_at ? c.activated_at.toISOString() : null,
});
