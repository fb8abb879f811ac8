import { randomBytes } from 'node:crypto';

/**
 * Crockford's base32: digits and letters without I, L, O and U, so a code read aloud or typed
 * from a screenshot has no look-alikes. 32 symbols carry 5 bits each.
 */
export const SERT_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PREFIX = 'ADN';
const BODY_LENGTH = 16; // 16 × 5 = 80 random bits
const GROUP = 4;

/** A new certificate text: `ADN-7KQ2-M9XD-4TPW-H3RC`, 80 bits from the system's CSPRNG. */
export function newSert(): string {
  const bytes = randomBytes((BODY_LENGTH * 5) / 8);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let body = '';
  for (let i = BODY_LENGTH - 1; i >= 0; i--) body += SERT_ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  return format(body);
}

const format = (body: string) => [PREFIX, ...(body.match(new RegExp(`.{${GROUP}}`, 'g')) ?? [])].join('-');

/** Cyrillic capitals drawn like the code's Latin ones (a code retyped from a screenshot on a Russian keyboard). */
const CYRILLIC_LOOKALIKES: Record<string, string> = { А: 'A', В: 'B', С: 'C', Е: 'E', З: '3', Н: 'H', К: 'K', М: 'M', О: '0', Р: 'P', Т: 'T', У: 'Y', Х: 'X' };

/**
 * What a player typed → the canonical text, or null when it cannot be a code at all. Case,
 * spaces and dashes do not matter, the prefix may be left out, the look-alikes Crockford
 * folds are folded (O → 0, I and L → 1), and so are Cyrillic letters drawn like the code's (А → A, Р → P…).
 */
export function normalizeSert(input: string): string | null {
  let s = input
    .toUpperCase()
    .replace(/[\s\-_–—]/g, '')
    .replace(/[АВСЕЗНКМОРТУХ]/g, (ch) => CYRILLIC_LOOKALIKES[ch] ?? ch);
  if (s.length === PREFIX.length + BODY_LENGTH && s.startsWith(PREFIX)) s = s.slice(PREFIX.length);
  if (s.length !== BODY_LENGTH) return null;
  s = s.replace(/O/g, '0').replace(/[IL]/g, '1');
  for (const ch of s) if (!SERT_ALPHABET.includes(ch)) return null;
  return format(s);
}

/** For operators' screens and logs: the first and last group only. */
export const maskSert = (sert: string) => {
  const parts = sert.split('-');
  return parts.map((p, i) => (i <= 1 || i === parts.length - 1 ? p : '****')).join('-');
};
