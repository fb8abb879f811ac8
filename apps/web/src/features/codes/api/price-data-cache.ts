import type { Code, CodeStatus } from '@adena/contract';
import type { QueryClient } from '@tanstack/react-query';
import { type AnyPriceData, isAuthPriceData, priceDataQueryOptions } from './price-data';

// SPEC.md section 4, the codes rules, as pure functions over one server's price data. The same
// functions serve the answers of calls and the realtime events, so both change the cache alike.

const sameCode = (id: number) => (c: Code) => c.id === id;

/**
 * A variant's code that stops being open (activated by a buyer, cancelled, removed) leaves its batch's
 * `open_count`: the edit dialog starts from that number, and the server reads an edit's count as the
 * open codes wanted, so a stale one would issue (and charge) codes the player never asked for.
 */
function closedInBatch(data: AnyPriceData, code: Code | undefined): AnyPriceData {
  if (code?.status !== 'active' || code.pricekod_id === null) return data;
  const id = code.pricekod_id;
  return { ...data, pricekods: data.pricekods.map((p) => (p.id === id ? { ...p, open_count: Math.max(0, p.open_count - 1) } : p)) };
}

const findCode = (data: AnyPriceData, codeId: number) => data.kods.find(sameCode(codeId)) ?? data.svoy_variant_kods.find(sameCode(codeId));

/** A code's status changes wherever the code is listed, and in the user's last activated code. */
export function withCodeStatus(data: AnyPriceData, codeId: number, status: CodeStatus): AnyPriceData {
  const set = (list: Code[]) => (list.some(sameCode(codeId)) ? list.map((c) => (c.id === codeId ? { ...c, status } : c)) : list);
  const counted = status === 'active' ? data : closedInBatch(data, findCode(data, codeId));
  const next = { ...counted, kods: set(data.kods), svoy_variant_kods: set(data.svoy_variant_kods) };
  if (isAuthPriceData(data) && data.user_kod?.code_id === codeId) return { ...next, user_kod: { ...data.user_kod, status } };
  return next;
}

/**
 * A new code of the user joins the list (once: the call's answer and the realtime event may both bring
 * it). A masked text (the event of a TOTP user) never replaces a whole one (the issuing call's answer).
 */
export function withCode(data: AnyPriceData, code: Code): AnyPriceData {
  if (data.kods.some(sameCode(code.id)) || data.svoy_variant_kods.some(sameCode(code.id))) {
    const merge = (c: Code): Code => {
      if (c.id !== code.id) return c;
      const keepText = !code.sert || (code.sert_masked && !c.sert_masked);
      return keepText ? { ...c, status: code.status } : { ...c, sert: code.sert, sert_masked: code.sert_masked, status: code.status };
    };
    return { ...data, kods: data.kods.map(merge), svoy_variant_kods: data.svoy_variant_kods.map(merge) };
  }
  return { ...data, kods: [code, ...data.kods] };
}

/** del_sert: the code leaves the user's list (and, open, its batch's count). */
export function withoutCode(data: AnyPriceData, codeId: number): AnyPriceData {
  const keep = (c: Code) => c.id !== codeId;
  const next = closedInBatch(data, findCode(data, codeId));
  return { ...next, kods: data.kods.filter(keep), svoy_variant_kods: data.svoy_variant_kods.filter(keep) };
}

/** Whether the cache knows this code; one it does not know may belong to a batch whose counts it cannot fix. */
export const knowsCode = (data: AnyPriceData | undefined, codeId: number) => Boolean(data && findCode(data, codeId));

export function withWalletBalance(data: AnyPriceData, balance: number, balanceSecond?: number): AnyPriceData {
  if (!isAuthPriceData(data)) return data;
  return { ...data, wallet: { ...data.wallet, balance, balance_second: balanceSecond ?? data.wallet.balance_second } };
}

/** kods with svoy_variant_kods merged in (SPEC.md section 3), newest first, each once. */
export function mergedCodes(data: AnyPriceData): Code[] {
  const seen = new Set<number>();
  const all: Code[] = [];
  for (const c of [...data.kods, ...data.svoy_variant_kods]) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    all.push(c);
  }
  return all.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id));
}

/** The price a code of this nominal costs, as far as the cached data tells (standard nominal or own variant). */
export function knownPrice(data: AnyPriceData, nominal: number, userVariantId: number | null = null): number | undefined {
  if (userVariantId !== null) return data.pricekods.find((p) => p.id === userVariantId)?.price;
  return data.standard_nominals.find((n) => n.nominal === nominal)?.price ?? data.pricekods.find((p) => p.nominal === nominal)?.price;
}

/** A code entry built from what an answer or event carries; the rest comes with the next fetch. */
export function codeEntry(
  data: AnyPriceData,
  fields: { id: number; nominal: number; sert: string; sert_masked?: boolean; status?: CodeStatus; price?: number; pricekod_id?: number | null },
): Code {
  const userVariantId = fields.pricekod_id ?? null;
  return {
    id: fields.id,
    nominal: fields.nominal,
    price: fields.price ?? knownPrice(data, fields.nominal, userVariantId) ?? fields.nominal,
    status: fields.status ?? 'active',
    sert: fields.sert,
    ...(fields.sert_masked ? { sert_masked: true } : {}),
    gamesserver_id: data.id,
    pricekod_id: userVariantId,
    created_at: new Date().toISOString(),
    activated_at: null,
  };
}

/** Applies `update` to the signed-in price data of one server, if it is cached. */
export function updateAuthPriceData(qc: QueryClient, gameServerId: number, update: (d: AnyPriceData) => AnyPriceData) {
  qc.setQueryData(priceDataQueryOptions(gameServerId, true).queryKey, (d) => (d ? update(d) : d));
}
