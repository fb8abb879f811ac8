import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString('base64url');

/**
 * Tokens are high-entropy, so a fast hash is enough to make a stolen table useless. One-shot
 * `crypto.hash` (the same SHA-256 hex as createHash's, a third of its cost): every signed-in call hashes
 * its bearer.
 */
export const hashToken = (token: string) => hash('sha256', token, 'hex');

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return m?.[1];
}
