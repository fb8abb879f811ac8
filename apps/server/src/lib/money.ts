/** The largest amount the API carries (PRODUCT.md section 2): a JSON number's exact integers. */
export const MAX_SAFE_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

/** Amounts are bigint from SQL to the service; they become JSON numbers only at the contract edge. */
export function toNumber(v: bigint): number {
  if (v > MAX_SAFE_AMOUNT || v < -MAX_SAFE_AMOUNT) {
    throw new RangeError(`amount ${v} is beyond what JSON carries exactly`);
  }
  return Number(v);
}

/**
 * A figure no movement's limit bounds (the operators' totals and a service account's balance, summed
 * over many wallets or requests; a batch's price at a fee raised since it was made): past ±(2^53 − 1) it
 * stays at that bound, the largest integer the contract carries, rather than a refusal that would blank
 * the whole screen (README "Rules"). Amounts of one movement or one wallet use toNumber.
 */
export const toFigure = (v: bigint): number => Number(v > MAX_SAFE_AMOUNT ? MAX_SAFE_AMOUNT : v < -MAX_SAFE_AMOUNT ? -MAX_SAFE_AMOUNT : v);

/** Fee in basis points, rounded up to a whole adena (PRODUCT.md section 5). */
export function feeOf(nominal: bigint, feeBp: number): bigint {
  const numerator = nominal * BigInt(feeBp);
  return (numerator + 9_999n) / 10_000n;
}
