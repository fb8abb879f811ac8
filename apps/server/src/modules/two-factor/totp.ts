import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as PRODUCT.md section 7 fixes it: SHA-1, 6 digits, 30 s steps, one step of drift either way. */
const PERIOD_S = 30;
const DRIFT_STEPS = 1;

const totpOf = (secret: string, label = '', issuer = '') =>
  new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: PERIOD_S });

/** A new 160-bit secret in base32, as authenticator apps take it. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** `issuer`: the service's name (BRAND_NAME), shown by the authenticator app above the account. */
export const otpauthUrl = (secret: string, label: string, issuer: string) => totpOf(secret, label, issuer).toString();

/**
 * The time step the code belongs to when it is right at `at` within one step of drift, or null.
 * The caller accepts it only when it is later than the last step accepted, so a code works once.
 */
export function totpStep(secret: string, code: string, at: Date): bigint | null {
  const delta = totpOf(secret).validate({ token: code, timestamp: at.getTime(), window: DRIFT_STEPS });
  if (delta === null) return null;
  return BigInt(Math.floor(at.getTime() / 1000 / PERIOD_S) + delta);
}

/** The code of a secret at a moment (tests and the browser tests compute codes this way too). */
export const totpCode = (secret: string, at: Date) => totpOf(secret).generate({ timestamp: at.getTime() });

/** Recovery codes: 10 letters and digits, shown as `xxxxx-xxxxx`; 50 bits each. */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
export function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % 32];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}
