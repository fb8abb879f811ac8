const MULTIPLIER: Record<string, bigint> = { '': 1n, к: 1_000n, кк: 1_000_000n, ккк: 1_000_000_000n };

/** «10.000», «1,000,000»: digits in groups of three after a dot or comma, with no suffix. */
const THOUSANDS = /^\d{1,3}(?:[.,]\d{3})+$/;

/**
 * Reads what players type: «1500000», «1 500 000», «1.5кк», «1,5кк», «2ккк», «500к»
 * (Latin k works too). Returns a safe integer, or null when the text is not a whole amount.
 * Without a suffix, a dot or comma before exactly three digits groups thousands («10.000» is ten
 * thousand, not ten); with one it is the decimal mark («1.500кк» is 1 500 000).
 */
export function parseAmount(input: string): number | null {
  const text = input
    .trim()
    .toLowerCase()
    .replace(/[\s\u00a0\u202f_]/g, '')
    .replace(/k/g, 'к');
  if (THOUSANDS.test(text)) {
    const value = BigInt(text.replace(/[.,]/g, ''));
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
  }
  const m = /^(\d+)(?:[.,](\d+))?(к{0,3})$/.exec(text);
  if (!m) return null;
  const [, whole = '', frac = '', suffix = ''] = m;
  // Exact integer arithmetic: 1.1кк is 1 100 000, never 1 100 000.0000001.
  const scaled = BigInt(whole + frac) * (MULTIPLIER[suffix] ?? 1n);
  const scale = 10n ** BigInt(frac.length);
  if (scaled % scale !== 0n) return null;
  const value = scaled / scale;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}
