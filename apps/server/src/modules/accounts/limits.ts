import type { RateRule } from '../sessions/rate-limit.service';

/** Limits per IP and per account; the per-token rules (5 tries, 1 send a minute) are PRODUCT.md's. */
export const DEFAULT_LIMITS = {
  /** Failed sign-ins of one login, whoever tries (issue 3: 10 per 15 minutes). */
  loginFailuresPerAccount: { limit: 10, windowMs: 15 * 60_000 },
  loginFailuresPerIp: { limit: 50, windowMs: 15 * 60_000 },
  /** Codes sent (sign-up, reset, resend) from one IP: stops one client mailing the world. */
  sendsPerIp: { limit: 30, windowMs: 60 * 60_000 },
  /** Codes sent to one address in an hour: stops anyone mail-bombing a player. */
  sendsPerAddress: { limit: 10, windowMs: 60 * 60_000 },
  /** Wrong codes from one IP across all its flows (each flow also dies after 5). */
  codeFailuresPerIp: { limit: 30, windowMs: 15 * 60_000 },
  /**
   * Wrong codes for one address in a day, over all its flows. Without it, 10 flows an hour of 5
   * tries each would allow 1,200 guesses a day at a reset code; with it, 25.
   */
  codeFailuresPerAddress: { limit: 25, windowMs: 24 * 60 * 60_000 },
  /** Discord and Telegram sign-ins from one IP. */
  socialPerIp: { limit: 30, windowMs: 15 * 60_000 },
} satisfies Record<string, RateRule>;

export type Limits = typeof DEFAULT_LIMITS;
