/** The largest amount the API carries (PRODUCT.md section 2): a JSON number's exact integers. */
export const MAX_SAFE_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

/** Amounts are bigint from SQL to the service; they become JSON numbers only at the contract edge. */
export function toNumber(v: bigint): number {
  if (v > MAX_SAFE_AMOUNT || v < -MAX_SAFE_AMOUNT) {
    throw new RangeError(`amount ${v} is beyond what JSON carries exactly`);
  }
  return Number(v);
}

/** Fee in basis points, rounded up to a whole adena (PRODUCT.md section 5). */
export function feeOf(nominal: bigint, feeBp: number): bigint {
  const numerator = nominal * BigInt(feeBp);
  return (numerator + 9_999n) / 10_000n;
}
